/**
 * A tiny element builder. Everything shown comes from the API (wallet names, file names, messages
 * written by others), so text always goes in as text nodes, never as HTML.
 */
import { t } from './i18n.js';

/**
 * h('a', { href: '#/runs', class: 'link' }, 'Runs') → <a href="#/runs" class="link">Runs</a>.
 * Attributes named on* take a function; `false`, `null` and `undefined` leave the attribute out.
 */
export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes ?? {})) {
    if (value === false || value === null || value === undefined) continue;
    if (name.startsWith('on') && typeof value === 'function') {
      element.addEventListener(name.slice(2).toLowerCase(), value);
    } else if (name === 'value' || name === 'max') {
      // Properties, so a <progress> or <input> updates even after the user touched it.
      element[name] = value;
    } else {
      element.setAttribute(name, value === true ? '' : String(value));
    }
  }
  append(element, children);
  return element;
}

function append(element, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Replaces an element's children. */
export function fill(element, ...children) {
  element.replaceChildren();
  append(element, children);
  return element;
}

/**
 * Re-renders `element` only when `data` changed since the last time. A polling page then leaves
 * untouched what did not change, so keyboard focus and screen-reader position stay where they were.
 */
export function fillIfChanged(element, data, render) {
  const fingerprint = JSON.stringify(data);
  if (element.dataset.fingerprint === fingerprint) return;
  element.dataset.fingerprint = fingerprint;
  fill(element, render(data));
}

/** Tells screen-reader users what happened (a page loaded, a download started). */
export function announce(message) {
  const region = document.getElementById('announcer');
  if (!region) return;
  // Clearing first makes the same message be read again when it repeats.
  region.textContent = '';
  setTimeout(() => (region.textContent = message), 50);
}

/** A table with a caption and column headers; `rows` are arrays of cells (text or elements). */
export function table({ caption, columns, rows, numeric = [], className = '' }) {
  const isNumeric = (index) => numeric.includes(index);
  // The wrapper scrolls when the table is wider than the screen; a tab stop lets keyboard users scroll it.
  return h(
    'div',
    { class: 'table-wrap', tabindex: '0', role: 'region', 'aria-label': caption ?? t('Table') },
    h(
      'table',
      { class: className },
      caption ? h('caption', {}, caption) : null,
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          columns.map((column, index) =>
            h('th', { scope: 'col', class: isNumeric(index) ? 'num' : null }, column),
          ),
        ),
      ),
      h(
        'tbody',
        {},
        rows.map((cells) =>
          h(
            'tr',
            {},
            cells.map((cell, index) =>
              index === 0
                ? h('th', { scope: 'row', class: isNumeric(index) ? 'num' : null }, cell)
                : h('td', { class: isNumeric(index) ? 'num' : null }, cell),
            ),
          ),
        ),
      ),
    ),
  );
}

/** Saves bytes the page fetched (with the key) as a file the browser downloads. */
export function saveBlob(blob, fileName) {
  const url = URL.createObjectURL(blob);
  const link = h('a', { href: url, download: fileName, hidden: true });
  document.body.append(link);
  link.click();
  link.remove();
  // The browser has started the download by now; keep the URL alive a little for slow disks.
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
