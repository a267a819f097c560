/** The dashboard's entry: pages switched by the URL's hash, the login form, the shared catalog. */
import './styles.css';
import { onAuthRequired } from './api';
import { completionSchema, createCatalogPage, loadCatalog } from './catalog';
import { el, replaceChildren } from './dom';
import { createLogin } from './login';
import { createLogsPage } from './logs';
import { createOverviewPage } from './overview';
import { createPipelinesPage } from './pipelines';
import { createWorkbench } from './workbench';

const PAGES = [
  ['query', 'Query'],
  ['catalog', 'Catalog'],
  ['logs', 'Logs'],
  ['pipelines', 'Pipelines'],
  ['overview', 'Overview'],
] as const;
type Page = (typeof PAGES)[number][0];

const sections = new Map<Page, HTMLElement>(
  PAGES.map(([id]) => [id, el('section', { id: `page-${id}`, hidden: true })]),
);
const section = (id: Page): HTMLElement => sections.get(id) as HTMLElement;
const links = PAGES.map(([id, title]) => el('a', { href: `#${id}`, 'data-page': id }, title));

const workbench = createWorkbench(section('query'));
const catalogPage = createCatalogPage(section('catalog'), (query) => {
  workbench.setQuery('sql', query);
  location.hash = '#query';
  void workbench.run();
});
const logsPage = createLogsPage(section('logs'));
const pipelinesPage = createPipelinesPage(section('pipelines'));
const overviewPage = createOverviewPage(section('overview'));

async function refreshCatalog(): Promise<void> {
  try {
    const catalog = await loadCatalog();
    workbench.setSchema(completionSchema(catalog));
    logsPage.setCatalog(catalog);
  } catch {
    // A refused login opens the form; anything else shows on the page that needs the catalog.
  }
}

function show(): void {
  const wanted = location.hash.slice(1);
  const page: Page = PAGES.some(([id]) => id === wanted) ? (wanted as Page) : 'query';
  for (const [id, node] of sections) node.hidden = id !== page;
  for (const a of links) {
    if (a.dataset.page === page) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
  document.title = `${PAGES.find(([id]) => id === page)?.[1]} · ShoalDB`;
  if (page === 'overview') overviewPage.start();
  else overviewPage.stop();
  if (page === 'catalog') void catalogPage.refresh();
  if (page === 'pipelines') void pipelinesPage.refresh();
  if (page === 'logs') void refreshCatalog();
}

const login = createLogin(() => {
  void refreshCatalog();
  show();
});
onAuthRequired(() => login.open());

replaceChildren(
  document.body,
  el('a', { class: 'skip', href: '#main' }, 'Skip to content'),
  el(
    'header',
    { class: 'top' },
    el('span', { class: 'brand' }, 'ShoalDB'),
    el('nav', { 'aria-label': 'Pages' }, links),
    login.signOut,
  ),
  el('main', { id: 'main', tabindex: -1 }, [...sections.values()]),
  login.dialog,
);
window.addEventListener('hashchange', show);
show();
void refreshCatalog();
