import { Inject, Injectable } from '@nestjs/common';
import {
  ConnectedSocket,
  MessageBody,
  OnGatewayConnection,
  OnGatewayDisconnect,
  OnGatewayInit,
  SubscribeMessage,
  WebSocketGateway,
} from '@nestjs/websockets';
import type { Socket } from 'socket.io';
import {
  ClientToServerEvents,
  EVENTS_NAMESPACE,
  QuarryError,
  ServerToClientEvents,
  SubscribeAck,
  isQuarryError,
  isTerminal,
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
 * joins the job's room for live events — exactly one outcome per subscriber (JobEventsEmitter). WebSocket transport only, so several gateways work
 * behind a plain load balancer without sticky sessions.
 */
@WebSocketGateway({ namespace: EVENTS_NAMESPACE, transports: ['websocket'], cors: { origin: true } })
@Injectable()
export class EventsGateway implements OnGatewayInit, OnGatewayConnection, OnGatewayDisconnect {
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

  handleDisconnect(socket: EventsSocket): void {
    this.emitter.forgetSocket(socket.id);
  }

  @SubscribeMessage('subscribe')
  async subscribe(@ConnectedSocket() socket: EventsSocket, @MessageBody() payload: unknown): Promise<SubscribeAck> {
    try {
      const jobId = jobIdOf(payload);
      const principal = socket.data.principal ?? { kind: 'anonymous' };
      const job = await this.jobs.get(jobId, principal);
      socket.emit('job.snapshot', { job, history: await this.jobs.historyOf(job.id) });
      this.emitter.follow(socket, job);
      // The job may have finished between the snapshot read and the join, when no room had this socket.
      if (!isTerminal(job.status)) this.emitter.catchUp(socket, await this.jobs.get(job.id, principal));
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
      this.emitter.unfollow(socket, jobIdOf(payload));
      return { ok: true };
    } catch {
      return { ok: false };
    }
  }
}

function jobIdOf(payload: unknown): string {
  const jobId = (payload as { jobId?: unknown } | null)?.jobId;
  if (typeof jobId !== 'string' || jobId.length === 0 || jobId.length > 64) {
    throw new QuarryError('input_invalid', 'subscribe needs {jobId: string}.', { suggestion: 'Send subscribe {"jobId": "<id from POST /v1/jobs>"}.' });
  }
  return jobId;
}
