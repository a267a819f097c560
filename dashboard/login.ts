/**
 * The login form, opened when the server answers 401: the server sends no WWW-Authenticate (as
 * GreptimeDB), so the browser would never prompt; the credentials go into every /v1 request.
 */
import { clearCredentials, hasCredentials, setCredentials } from './api';
import { el, field } from './dom';

export function createLogin(onLogin: () => void): {
  open(): void;
  dialog: HTMLDialogElement;
  signOut: HTMLButtonElement;
} {
  const user = el('input', { type: 'text', autocomplete: 'username', required: true });
  const password = el('input', { type: 'password', autocomplete: 'current-password' });
  const message = el('p', { class: 'error', role: 'alert' });
  const dialog = el(
    'dialog',
    { class: 'login', 'aria-labelledby': 'login-title' },
    el(
      'form',
      {
        method: 'dialog',
        onsubmit: () => {
          setCredentials(user.value, password.value);
          password.value = '';
          signOut.hidden = false;
          onLogin();
        },
      },
      el('h2', { id: 'login-title' }, 'Sign in to ShoalDB'),
      message,
      field('User', user),
      field('Password', password),
      el('button', { type: 'submit', class: 'primary' }, 'Sign in'),
    ),
  );
  const signOut = el(
    'button',
    {
      type: 'button',
      hidden: !hasCredentials(),
      onclick: () => {
        clearCredentials();
        signOut.hidden = true;
        location.reload();
      },
    },
    'Sign out',
  );
  return {
    open() {
      if (dialog.open) return;
      message.textContent = hasCredentials() ? 'Those credentials were refused.' : 'This server requires a login.';
      clearCredentials();
      signOut.hidden = true;
      dialog.showModal();
      user.focus();
    },
    dialog,
    signOut,
  };
}
