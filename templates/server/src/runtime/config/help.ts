/** `--help`: written from the settings table, so every flag and env var it names exists, with its real default. */
import {
  describeSettingDefault,
  describeSettingRange,
  SETTINGS,
  settingEnv,
  type SettingDefinition,
  type SettingsApi,
} from "./settings.js";

export interface UsageApi extends SettingsApi {
  name: string;
  baseUrlEnv: string;
}

const COLUMN = 34;

export function usage(api: UsageApi): string {
  const settings = Object.values(SETTINGS) as SettingDefinition[];
  const withFlag = settings.filter((setting) => setting.flag !== undefined);
  const envOnly = settings.filter((setting) => setting.flag === undefined);
  return [
    `Usage: ${api.name} [options]`,
    "",
    "Options (a flag wins over its environment variable, which wins over the default):",
    ...withFlag.flatMap((setting) => entry(`--${setting.flag}${flagArgument(setting)}`, setting, api)),
    ...entry("--help, -h", undefined, api),
    "",
    "Environment only:",
    ...envOnly.flatMap((setting) => entry(settingEnv(setting, api.envPrefix), setting, api, false)),
    ...entry(api.baseUrlEnv, undefined, api, false, "overrides the upstream base URL"),
    "",
    "Credentials are read from the environment variables listed in the README and .env.example.",
  ].join("\n");
}

function flagArgument(setting: SettingDefinition): string {
  switch (setting.kind) {
    case "boolean":
      return "";
    case "integer":
      return " N";
    case "choice":
      return ` ${setting.placeholder ?? setting.choices.join("|")}`;
    case "list":
      return " a,b";
    case "text":
      return ` ${setting.placeholder ?? "VALUE"}`;
    default:
      return " VALUE";
  }
}

/** `  --port N   HTTP port; default 3000` and, under it, `  env PETS_PORT`. */
function entry(
  label: string,
  setting: SettingDefinition | undefined,
  api: SettingsApi,
  showEnv = true,
  text = "show this message",
): string[] {
  const help = setting?.help ?? text;
  // A boolean flag only ever sets one value; its env line below says which.
  const fallback = setting && setting.kind !== "boolean" ? describeSettingDefault(setting, api) : undefined;
  const range = setting?.kind === "integer" ? describeSettingRange(setting) : undefined;
  const details = [fallback !== undefined && `default ${fallback}`, range && `range ${range}`].filter(Boolean);
  const first = `  ${label.padEnd(COLUMN - 3)} ${help}${details.length ? `; ${details.join(", ")}` : ""}`;
  if (!setting || !showEnv) return [first];
  const env = settingEnv(setting, api.envPrefix);
  const envLine = setting.kind === "boolean" ? `${env}=${String(setting.flagSets ?? true)}` : env;
  return [first, `${" ".repeat(COLUMN)}env ${envLine}`];
}
