/**
 * The parts of the view engine that need neither Redis nor Lettuce: the order events are applied in
 * ({@link io.lodestar.redis.internal.view.EventOrder}), how many topics load at once
 * ({@link io.lodestar.redis.internal.view.Admission}), the hand-over from Redis' I/O thread to the view thread
 * ({@link io.lodestar.redis.internal.view.Inbox}, {@link io.lodestar.redis.internal.view.Handover}), which topic a
 * PubSub channel belongs to ({@link io.lodestar.redis.internal.view.ChannelRouter}), the deadlines of pending
 * loads and waits ({@link io.lodestar.redis.internal.view.Deadlines}), what a topic keeps serving after Redis lost its
 * data and until when ({@link io.lodestar.redis.internal.view.Kept}) and the bounds of it all
 * ({@link io.lodestar.redis.internal.view.ViewLimits}). {@code io.lodestar.redis.SyncedView} wires them into its
 * state machine; each is unit-tested on its own, without Redis and without waiting.
 *
 * <p><b>Not an API.</b> Everything under {@code io.lodestar.redis.internal} may change in any release; it is public
 * only so the engine's packages can share it. Nothing here imports Lettuce, the key layout or the scripts.
 */
package io.lodestar.redis.internal.view;
