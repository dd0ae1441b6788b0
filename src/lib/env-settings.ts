import { Type, type Static, type TObject, type TProperties } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';

/** A setting the service cannot start with; the message names the variable. */
export class ConfigError extends Error {}

/** The environment variables as the process received them. */
export type Environment = Readonly<Record<string, string | undefined>>;

/** What a settings fragment is told besides its own variables. */
export interface SettingsContext {
  /** The address of the local stand-in `portOffset` ports above SANDBOX_PORT_BASE. */
  standInUrl(portOffset: number): string;
}

/**
 * One module's part of the configuration (each connector has one): its environment variables,
 * each with its check, and how they become the module's settings. config.ts reads the fragments
 * it is given the way it reads its own variables, so every variable is checked at start.
 */
export interface SettingsFragment<P extends TProperties = TProperties, T = unknown> {
  readonly env: P;
  parse(values: Static<TObject<P>>, context: SettingsContext): T;
}

/** A fragment with its types inferred from the schema of its variables. */
export function settingsFragment<P extends TProperties, T>(env: P, parse: (values: Static<TObject<P>>, context: SettingsContext) => T): SettingsFragment<P, T> {
  return { env, parse };
}

/** The settings of each fragment of a list, under the fragment's name. */
export type SettingsOf<L extends Record<string, SettingsFragment<any, unknown>>> = { [K in keyof L]: ReturnType<L[K]['parse']> };

/**
 * Reads the variables `properties` names: unset and empty ones are left out, whole numbers are
 * read as numbers where the schema takes an integer, and the first value that fails its check
 * stops the start with a ConfigError naming the variable.
 */
export function readEnv<P extends TProperties>(env: Environment, properties: P): Static<TObject<P>> {
  const schema = Type.Object(properties);
  const raw: Record<string, unknown> = {};
  for (const [key, property] of Object.entries(properties)) {
    const value = env[key];
    if (value === undefined || value === '') continue;
    raw[key] = (property as { type?: string }).type === 'integer' && /^-?[0-9]+$/.test(value) ? Number(value) : value;
  }
  if (!Value.Check(schema, raw)) {
    const first = [...Value.Errors(schema, raw)][0];
    const name = first ? first.path.slice(1) : 'configuration';
    throw new ConfigError(`Invalid configuration: ${name}=${JSON.stringify(raw[name] ?? null)} (${first?.message ?? 'invalid'})`);
  }
  return raw as Static<TObject<P>>;
}

/** A comma-separated list, without blanks. */
export function listSetting(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

/** A platform's base URL (`https://...`), the local stand-in's unless set. */
export const PlatformUrl = Type.String({ pattern: '^https?://' });
