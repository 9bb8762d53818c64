/** The provider's own sign-in page: plain HTML, no script, so it works in any browser and any test. */
import type { DirectoryPerson } from './people';

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

export function renderSignInPage(input: {
  uid: string;
  people: readonly DirectoryPerson[];
  error?: string;
}): string {
  const options = input.people
    .map(
      (person) =>
        `<option value="${escapeHtml(person.subject)}">${escapeHtml(person.name)} — ${escapeHtml(
          person.groups.join(', '),
        )}</option>`,
    )
    .join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>payrun identity — sign in</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{font:16px system-ui,sans-serif;max-width:28rem;margin:4rem auto;padding:0 1rem}
label,select,input,button{display:block;width:100%;margin:.3rem 0 1rem;font:inherit}
.error{color:#a00}</style></head>
<body><h1>Sign in to payrun</h1>
${input.error ? `<p class="error" role="alert">${escapeHtml(input.error)}</p>` : ''}
<form method="post" action="/interaction/${escapeHtml(input.uid)}/login" autocomplete="off">
<label for="subject">Person</label>
<select id="subject" name="subject" required>${options}</select>
<label for="password">Password</label>
<input id="password" name="password" type="password" required>
<button type="submit" id="sign-in">Sign in</button>
</form></body></html>`;
}
