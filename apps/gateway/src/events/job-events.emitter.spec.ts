import { jobRoom } from '@quarry/contracts';
import { EventsNamespace, JobEventsEmitter } from './job-events.emitter';

/** A namespace with the rooms given, recording what is emitted to which room. */
function fakeNamespace(rooms: string[]) {
  const sent: Array<{ room: string; name: string; payload: unknown }> = [];
  const namespace = {
    adapter: { rooms: new Map(rooms.map((room) => [room, new Set(['socket-1'])])) },
    to: (room: string) => ({ emit: (name: string, payload: unknown) => sent.push({ room, name, payload }) }),
  };
  return { namespace: namespace as unknown as EventsNamespace, sent };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('JobEventsEmitter', () => {
  it('sends a room its events of a tick together on the next tick, superseded progress dropped, order kept', async () => {
    const emitter = new JobEventsEmitter();
    const { namespace, sent } = fakeNamespace([jobRoom('a')]);
    emitter.attach(namespace);
    emitter.status('a', 'running');
    emitter.progress('a', { stage: 'reading', done: 1 });
    emitter.progress('a', { stage: 'reading', done: 2 });
    emitter.completed('a', { files: 3 });
    expect(sent).toHaveLength(0);
    await tick();
    expect(sent.map((event) => event.name)).toEqual(['job.status', 'job.progress', 'job.completed']);
    expect(sent[1].payload).toEqual({ jobId: 'a', progress: { stage: 'reading', done: 2 } });
  });

  it('encodes nothing for a room nobody is in, but still tells in-process watchers at once', async () => {
    const emitter = new JobEventsEmitter();
    const { namespace, sent } = fakeNamespace([]);
    emitter.attach(namespace);
    const seen: string[] = [];
    const stop = emitter.watch('b', (event) => seen.push(event.type));
    emitter.progress('b', { stage: 'x', done: 1 });
    emitter.completed('b', null);
    expect(seen).toEqual(['progress', 'completed']);
    await tick();
    expect(sent).toHaveLength(0);
    expect(emitter.isWatched('b')).toBe(true);
    stop();
    expect(emitter.isWatched('b')).toBe(false);
  });
});
