import { SETTINGS } from '../config.ts';

export interface SettingDoc {
  readonly env: string;
  readonly default: string | null;
  readonly description: string;
}

/** The configuration as documented in SETTINGS, the single source of the README's table. */
export function settingDocs(): SettingDoc[] {
  return SETTINGS.map((s) => ({ env: s.env, default: s.default ?? null, description: s.description }));
}

// A `|` inside a cell would end it early.
const cell = (text: string): string => text.replaceAll('|', '\\|');

export function configTable(): string {
  const rows = settingDocs().map((s) => `| \`${s.env}\` | ${s.default === null ? '(none)' : `\`${cell(s.default)}\``} | ${cell(s.description)} |`);
  return ['| Variable | Default | Description |', '|---|---|---|', ...rows].join('\n') + '\n';
}
