// Older TypeScript: angle-bracket type assertions.
export function parsePort(value: unknown): number {
  const text = <string>value;
  return parseInt(text, 10);
}

export class Settings {
  private values: Map<string, unknown> = new Map();

  get<T>(key: string): T {
    return <T>this.values.get(key);
  }

  set(key: string, value: unknown): void {
    this.values.set(key, value);
  }
}
