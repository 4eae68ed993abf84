import { IncomingMessage, ServerResponse } from "node:http";

export type Handler = (req: IncomingMessage, res: ServerResponse, params: Params) => Promise<void>;

export interface Params {
  [name: string]: string;
}

interface Route {
  method: string;
  pattern: RegExp;
  keys: string[];
  handler: Handler;
}

export class Router {
  private routes: Route[] = [];

  add(method: string, path: string, handler: Handler): this {
    const keys: string[] = [];
    const source = path.replace(/:(\w+)/g, (_, key: string) => {
      keys.push(key);
      return "([^/]+)";
    });
    this.routes.push({ method, pattern: new RegExp(`^${source}$`), keys, handler });
    return this;
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<boolean> {
    const url = new URL(req.url ?? "/", "http://localhost");
    for (const route of this.routes) {
      const match = route.method === req.method ? route.pattern.exec(url.pathname) : null;
      if (match) {
        await route.handler(req, res, paramsFrom(route.keys, match));
        return true;
      }
    }
    return false;
  }
}

function paramsFrom(keys: string[], match: RegExpExecArray): Params {
  const params: Params = {};
  keys.forEach((key, index) => {
    params[key] = decodeURIComponent(match[index + 1]);
  });
  return params;
}

export const notFound = async (_req: IncomingMessage, res: ServerResponse): Promise<void> => {
  res.statusCode = 404;
  res.setHeader("content-type", "application/json");
  res.end(JSON.stringify({ error: "not found" }));
};

export async function readJson<T>(req: IncomingMessage): Promise<T> {
  const parts: Buffer[] = [];
  for await (const part of req) {
    parts.push(part as Buffer);
  }
  return JSON.parse(Buffer.concat(parts).toString("utf8")) as T;
}
