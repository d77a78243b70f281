// The Settings screen's part of the Transport (transport.ts extends it): the
// same methods over Wails bindings (wails.ts) and HTTP (http.ts). A setting
// Quire refuses rejects with SettingRefused, which names the field, so the
// screen shows the sentence next to it; anything else rejects with an Error
// whose message is a sentence for the user.
import type { OllamaCheck, SettingsScreen, UserSettings } from '../protocol';


/** A setting Quire refused: `field` is its name in UserSettings, the message what to do. */
export class SettingRefused extends Error {
  constructor(
    readonly field: keyof UserSettings | string,
    message: string,
  ) {
    super(message);
    this.name = 'SettingRefused';
  }
}

export interface SettingsTransport {
  /** Every choice with what the screen needs (the model's trained length, whether it can think, the bounds). */
  settings(): Promise<SettingsScreen>;
  /**
   * Saves every choice for the next reply; resolves with the screen as it
   * now is, or rejects with SettingRefused naming the refused field.
   */
  saveSettings(s: UserSettings): Promise<SettingsScreen>;
  /** Asks an address whether Ollama answers there, saving nothing (a few seconds at most). */
  checkOllama(address: string): Promise<OllamaCheck>;
}

/** A screen from a host, with the arrays and maps the screen relies on (Go writes empty ones as null). */
export function settingsScreen(r: SettingsScreen): SettingsScreen {
  return {
    ...r,
    models: r.models ?? [],
    profiles: r.profiles ?? ['minimal', 'ask', 'write'],
    themes: r.themes ?? ['system', 'light', 'dark'],
    pinned: r.pinned ?? {},
  };
}
