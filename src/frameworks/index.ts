// The framework registry: every adapter, in the order detection tries them.
import type { FrameworkId } from '../analysis/endpoints/model';
import type { FrameworkAdapter } from './adapter';
import { express } from './express';
import { fastify } from './fastify';
import { hono } from './hono';
import { koa } from './koa';
import { nest } from './nest';
import { nodeHttp } from './node-http';
import { webFetch } from './web-fetch';

export const adapters: readonly FrameworkAdapter[] = [express, fastify, koa, hono, nest, nodeHttp, webFetch];

export function adapterFor(id: FrameworkId): FrameworkAdapter {
  const adapter = adapters.find((a) => a.id === id);
  if (!adapter) throw new Error(`no framework adapter for ${id}`);
  return adapter;
}

export type { ErrorAnswer, FrameworkAdapter, HandlerParams, RequestAccess, Style } from './adapter';
