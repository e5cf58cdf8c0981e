export const GATEWAY_LOGGER = Symbol('GATEWAY_LOGGER');
/** A plain Redis connection for publishing cancel requests and for readiness pings. */
export const REDIS_PUBLISHER = Symbol('REDIS_PUBLISHER');
