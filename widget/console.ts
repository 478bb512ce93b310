/**
 * /assets/console.js: small enhancements for the console pages, which all work without it.
 * - copy buttons ([data-copy] names the element whose text to copy)
 * - the workspace switcher submits on change
 * - searchable choices of codes (languages, regions) fill their comma-separated fields
 * - the widget editor's live preview: the real panel, re-rendered as the form changes
 */
import type { WidgetConfig } from './src/types';

for (const button of document.querySelectorAll<HTMLButtonElement>('button[data-copy]')) {
  const label = button.textContent ?? 'Copy';
  button.hidden = false;
  button.addEventListener('click', async () => {
    const source = document.getElementById(button.dataset.copy ?? '');
    const text =
      source instanceof HTMLInputElement || source instanceof HTMLTextAreaElement
        ? source.value
        : (source?.textContent ?? '');
    try {
      await navigator.clipboard.writeText(text.trim());
      button.textContent = 'Copied';
    } catch {
      const range = document.createRange();
      if (source) range.selectNodeContents(source);
      getSelection()?.removeAllRanges();
      getSelection()?.addRange(range);
      button.textContent = 'Press Ctrl+C to copy';
    }
    setTimeout(() => (button.textContent = label), 2000);
  });
}

for (const select of document.querySelectorAll<HTMLSelectElement>('select[data-autosubmit]')) {
  select.addEventListener('change', () => select.form?.requestSubmit());
  select.form?.querySelector('button')?.classList.add('sr-only');
}

// A searchable choice adds the chosen code to its comma-separated field (shared/code-choice.tsx).
for (const choice of document.querySelectorAll<HTMLElement>('[data-code-choice]')) {
  const field = choice.closest('form')?.querySelector<HTMLInputElement>(`input[name="${choice.dataset.codeChoice}"]`);
  const search = choice.querySelector('input');
  const codes = new Set([...choice.querySelectorAll('option')].map((option) => option.value));
  if (!field || !search) continue;
  choice.hidden = false;
  search.addEventListener('input', () => {
    const code = search.value.trim();
    if (!codes.has(code)) return;
    const current = field.value
      .split(',')
      .map((entry) => entry.trim())
      .filter(Boolean);
    if (!current.includes(code)) field.value = [...current, code].join(', ');
    search.value = '';
  });
}

const preview = document.getElementById('widget-preview');
const configBlock = document.getElementById('preview-config');
const form = document.getElementById('widget-form') as HTMLFormElement | null;
if (preview && configBlock?.textContent && form && window.egwPanel) {
  const base = JSON.parse(configBlock.textContent) as WidgetConfig;
  const root = preview.attachShadow({ mode: 'open' });
  const box = document.createElement('div');
  root.append(box);
  const configFromForm = (): WidgetConfig => {
    const config = structuredClone(base) as unknown as Record<string, Record<string, unknown>>;
    for (const [name, value] of new FormData(form)) {
      const [section, field] = name.split('.');
      if (!section || !field || !config[section] || typeof value !== 'string') continue;
      config[section][field] = field.startsWith('offset_') ? Number(value) : value;
    }
    return config as unknown as WidgetConfig;
  };
  const panel = window.egwPanel.mount(box, root, { config: configFromForm(), attribution: {}, mode: 'preview' });
  const refresh = () => panel.update({ config: configFromForm(), attribution: {}, mode: 'preview' });
  form.addEventListener('input', refresh);
  form.addEventListener('change', refresh);
}
