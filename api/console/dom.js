// @ts-check
/**
 * A tiny element builder. Everything shown comes from the API (wallet names, file names, messages
 * written by others), so text always goes in as text nodes, never as HTML.
 */
import { t } from './i18n.js';

/** @typedef {import('./types.js').Child} Child */

/**
 * An attribute's value: `false`, `null` and `undefined` leave the attribute out, `true` sets it empty;
 * attributes named on* take a listener.
 * @typedef {string | number | boolean | null | undefined | ((event: Event) => unknown)} AttributeValue
 */
/** @typedef {Record<string, AttributeValue>} Attributes */

/**
 * h('a', { href: '#/runs', class: 'link' }, 'Runs') → <a href="#/runs" class="link">Runs</a>.
 * Attributes named on* take a function; `false`, `null` and `undefined` leave the attribute out.
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Attributes | null} [attributes]
 * @param {...Child} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes ?? {})) {
    if (value === false || value === null || value === undefined) continue;
    if (name.startsWith('on') && typeof value === 'function') {
      element.addEventListener(name.slice(2).toLowerCase(), value);
    } else if (name === 'value' || name === 'max') {
      // Properties, so a <progress> or <input> updates even after the user touched it.
      /** @type {Record<string, unknown>} */ (/** @type {unknown} */ (element))[name] = value;
    } else {
      element.setAttribute(name, value === true ? '' : String(value));
    }
  }
  append(element, children);
  return element;
}

/**
 * @param {Element} element
 * @param {Child[]} children
 */
function append(element, children) {
  // Flattened as plain values: the nesting of Child is unbounded, which its type cannot follow here.
  for (const child of /** @type {unknown[]} */ (children).flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/**
 * Replaces an element's children.
 * @template {Element} E
 * @param {E} element
 * @param {...Child} children
 * @returns {E}
 */
export function fill(element, ...children) {
  element.replaceChildren();
  append(element, children);
  return element;
}

/**
 * Re-renders `element` only when `data` changed since the last time. A polling page then leaves
 * untouched what did not change, so keyboard focus and screen-reader position stay where they were.
 * @template T
 * @param {HTMLElement} element
 * @param {T} data
 * @param {(data: T) => Child} render
 */
export function fillIfChanged(element, data, render) {
  const fingerprint = JSON.stringify(data);
  if (element.dataset.fingerprint === fingerprint) return;
  element.dataset.fingerprint = fingerprint;
  fill(element, render(data));
}

/**
 * Tells screen-reader users what happened (a page loaded, a download started).
 * @param {string} message
 */
export function announce(message) {
  const region = document.getElementById('announcer');
  if (!region) return;
  // Clearing first makes the same message be read again when it repeats.
  region.textContent = '';
  setTimeout(() => (region.textContent = message), 50);
}

/**
 * A table with a caption and column headers; `rows` are arrays of cells (text or elements).
 * @param {object} options
 * @param {string} [options.caption]
 * @param {Child[]} options.columns
 * @param {Child[][]} options.rows
 * @param {number[]} [options.numeric] Indexes of the columns that hold numbers (aligned right).
 * @param {string} [options.className]
 */
export function table({ caption, columns, rows, numeric = [], className = '' }) {
  /** @param {number} index */
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

/**
 * Saves bytes the page fetched (with the key) as a file the browser downloads.
 * @param {Blob} blob
 * @param {string} fileName
 */
export function saveBlob(blob, fileName) {
  const url = URL.createObjectURL(blob);
  const link = h('a', { href: url, download: fileName, hidden: true });
  document.body.append(link);
  link.click();
  link.remove();
  // The browser has started the download by now; keep the URL alive a little for slow disks.
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
