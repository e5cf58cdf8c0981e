import { Injectable, OnModuleInit } from '@nestjs/common';
import { DiscoveryService, Reflector } from '@nestjs/core';
import { BUILT_KINDS, JobKind, isBuiltKind, isJobKind } from '@quarry/contracts';
import { HANDLES_JOB, JobHandler } from './job-handler';

/**
 * Finds the @HandlesJob providers and refuses to boot unless every built kind has exactly one
 * handler and no handler claims a kind the gateway would refuse.
 */
@Injectable()
export class HandlerRegistry implements OnModuleInit {
  private handlers = new Map<JobKind, JobHandler>();

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly reflector: Reflector,
  ) {}

  onModuleInit(): void {
    const found = this.discovery
      .getProviders()
      .filter((wrapper) => wrapper.metatype && wrapper.instance)
      .map((wrapper) => ({ kind: this.reflector.get<string>(HANDLES_JOB, wrapper.metatype as new (...args: never[]) => unknown), instance: wrapper.instance as JobHandler }))
      .filter((entry): entry is { kind: string; instance: JobHandler } => entry.kind !== undefined);
    this.handlers = buildHandlerMap(found);
  }

  get(kind: JobKind): JobHandler | undefined {
    return this.handlers.get(kind);
  }

  all(): ReadonlyMap<JobKind, JobHandler> {
    return this.handlers;
  }
}

/** Pure check behind the registry, so the boot rules are unit-testable. */
export function buildHandlerMap(found: Array<{ kind: string; instance: JobHandler }>): Map<JobKind, JobHandler> {
  const map = new Map<JobKind, JobHandler>();
  for (const { kind, instance } of found) {
    if (!isJobKind(kind)) throw new Error(`a handler claims unknown job kind "${kind}"`);
    if (!isBuiltKind(kind)) throw new Error(`a handler claims "${kind}", which is not in BUILT_KINDS`);
    if (map.has(kind)) throw new Error(`job kind "${kind}" has two handlers`);
    map.set(kind, instance);
  }
  const missing = BUILT_KINDS.filter((kind) => !map.has(kind));
  if (missing.length > 0) throw new Error(`no handler for job kind(s): ${missing.join(', ')}`);
  return map;
}
