import { Inject, Injectable } from '@nestjs/common';
import {
  ConnectedSocket,
  MessageBody,
  OnGatewayConnection,
  OnGatewayInit,
  SubscribeMessage,
  WebSocketGateway,
} from '@nestjs/websockets';
import type { Socket } from 'socket.io';
import {
  ClientToServerEvents,
  EVENTS_NAMESPACE,
  JobView,
  QuarryError,
  ServerToClientEvents,
  SubscribeAck,
  isQuarryError,
  isTerminal,
  jobRoom,
} from '@quarry/contracts';
import type { Logger } from '@quarry/config';
import { AccessService } from '../auth/access.service';
import { Principal } from '../auth/principal';
import { JobsService } from '../jobs/jobs.service';
import { GATEWAY_LOGGER } from '../gateway.tokens';
import { EventsNamespace, JobEventsEmitter } from './job-events.emitter';

type EventsSocket = Socket<ClientToServerEvents, ServerToClientEvents, Record<string, never>, { principal?: Principal }>;

/**
 * socket.io `/events`. The handshake carries the API key (`auth.token`); `subscribe {jobId}`
 * answers with the job, sends a snapshot (status, progress, result, history) from Postgres, then
 * joins the job's room for live events. WebSocket transport only, so several gateways work
 * behind a plain load balancer without sticky sessions.
 */
@WebSocketGateway({ namespace: EVENTS_NAMESPACE, transports: ['websocket'], cors: { origin: true } })
@Injectable()
export class EventsGateway implements OnGatewayInit, OnGatewayConnection {
  constructor(
    private readonly access: AccessService,
    private readonly jobs: JobsService,
    private readonly emitter: JobEventsEmitter,
    @Inject(GATEWAY_LOGGER) private readonly logger: Logger,
  ) {}

  afterInit(namespace: EventsNamespace): void {
    this.emitter.attach(namespace);
    // Authenticate during the handshake: a refused client never gets a connected socket.
    namespace.use((socket, next) => {
      const token = (socket.handshake.auth as { token?: unknown } | undefined)?.token;
      this.access
        .authenticate(typeof token === 'string' ? token : undefined)
        .then((principal) => {
          (socket as EventsSocket).data.principal = principal;
          next();
        })
        .catch((error: unknown) => {
          const body = isQuarryError(error) ? error.toBody() : { kind: 'internal', message: 'authentication failed' };
          next(Object.assign(new Error(body.message), { data: body }));
        });
    });
  }

  handleConnection(socket: EventsSocket): void {
    this.logger.debug({ socket: socket.id }, 'socket connected');
  }

  @SubscribeMessage('subscribe')
  async subscribe(@ConnectedSocket() socket: EventsSocket, @MessageBody() payload: unknown): Promise<SubscribeAck> {
    try {
      const jobId = jobIdOf(payload);
      const principal = socket.data.principal ?? { kind: 'anonymous' };
      const job = await this.jobs.get(jobId, principal);
      socket.emit('job.snapshot', { job, history: await this.jobs.historyOf(job.id) });
      await socket.join(jobRoom(jobId));
      await this.catchUp(socket, job, principal);
      return { ok: true, job };
    } catch (error) {
      if (isQuarryError(error)) return { ok: false, error: error.toBody() };
      this.logger.error({ err: error }, 'subscribe failed');
      return { ok: false, error: { kind: 'internal', message: 'subscribe failed' } };
    }
  }

  @SubscribeMessage('unsubscribe')
  async unsubscribe(@ConnectedSocket() socket: EventsSocket, @MessageBody() payload: unknown): Promise<{ ok: boolean }> {
    try {
      await socket.leave(jobRoom(jobIdOf(payload)));
      return { ok: true };
    } catch {
      return { ok: false };
    }
  }

  /**
   * The job may have finished between the snapshot read and the join, when no room saw its
   * final event: read it once more and send that event to this socket only.
   */
  private async catchUp(socket: EventsSocket, seen: JobView, principal: Principal): Promise<void> {
    if (isTerminal(seen.status)) return;
    const now = await this.jobs.get(seen.id, principal);
    if (now.status === 'succeeded') socket.emit('job.completed', { jobId: now.id, result: now.result });
    else if (now.status === 'failed' && now.error) socket.emit('job.failed', { jobId: now.id, error: now.error });
    else if (now.status === 'cancelled') socket.emit('job.cancelled', { jobId: now.id });
  }
}

function jobIdOf(payload: unknown): string {
  const jobId = (payload as { jobId?: unknown } | null)?.jobId;
  if (typeof jobId !== 'string' || jobId.length === 0 || jobId.length > 64) {
    throw new QuarryError('input_invalid', 'subscribe needs {jobId: string}.', { suggestion: 'Send subscribe {"jobId": "<id from POST /v1/jobs>"}.' });
  }
  return jobId;
}
