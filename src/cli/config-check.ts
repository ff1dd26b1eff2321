import { loadConfig, SETTINGS } from '../config.ts';

// `herald config --check`: the configuration this environment gives, validated the
// way the server validates it (a bad value exits 78, naming the variable), printed
// with every secret masked so the output can be pasted into a ticket.

export interface SettingInEffect {
  readonly env: string;
  /** As given or defaulted, secrets masked; null when unset. */
  readonly value: string | null;
  readonly source: 'set' | 'default' | 'unset';
}

const MASK = '****';
// Query parameters that carry credentials in connection strings (pg's `password`, say).
const SECRET_PARAMETER = /^(password|pass|passwd|secret|token)$/i;

/** A URL with its password (and password-like parameters) masked; a value that is no URL stays as it is. */
export function maskUrlSecrets(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return raw;
  }
  if (url.password !== '') url.password = MASK;
  for (const name of [...url.searchParams.keys()]) if (SECRET_PARAMETER.test(name)) url.searchParams.set(name, MASK);
  // URLSearchParams percent-encodes the mask's asterisks; keep them readable.
  return url.href.replaceAll('%2A%2A%2A%2A', MASK);
}

/** Validates `env` (throws ConfigError as the server would) and lists every setting's value in effect. */
export function settingsInEffect(env: NodeJS.ProcessEnv): SettingInEffect[] {
  const config = loadConfig(env);
  return SETTINGS.map((setting): SettingInEffect => {
    const given = env[setting.env];
    // A default derived from other settings (HERALD_PUBLIC_URL from the port) is shown as the server will use it.
    const derived = config[setting.key];
    const raw = given !== undefined && given !== '' ? given : setting.default ?? (typeof derived === 'string' ? derived : undefined);
    const source = given !== undefined && given !== '' ? 'set' : raw === undefined ? 'unset' : 'default';
    if (raw === undefined) return { env: setting.env, value: null, source };
    const secret = 'secret' in setting ? setting.secret : undefined;
    const value = secret === 'value' ? MASK : secret === 'url' ? maskUrlSecrets(raw) : raw;
    return { env: setting.env, value, source };
  });
}

/** One `NAME=value  # source` line per setting, like an environment file. */
export function settingsText(settings: readonly SettingInEffect[]): string {
  const width = Math.max(...settings.map((s) => s.env.length + 1 + (s.value ?? '').length));
  return settings.map((s) => `${`${s.env}=${s.value ?? ''}`.padEnd(width)}  # ${s.source}`).join('\n') + '\n';
}
