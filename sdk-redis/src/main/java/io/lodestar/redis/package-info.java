/**
 * Lodestar on Redis: {@link io.lodestar.redis.RedisLodestar} creates a client (found by
 * {@code io.lodestar.core.Lodestar.connect} on its own); everything else here is package-private. docs/redis.md
 * ("Where things live") maps each promise of the README to the classes that keep it; in short:
 *
 * <ul>
 *   <li>Connections: {@code RedisBackend} (command and PubSub connections, standalone, Sentinel, Cluster) with
 *       {@code ClientSettings}, {@code OfflineStart}, {@code Heartbeat}, {@code OutageLog}, {@code PingBarrier},
 *       {@code StandaloneSubscriptions} and {@code ClusterSubscriptions} ({@code RehomeSchedule},
 *       {@code RefreshThrottle}, {@code DropMemory}).</li>
 *   <li>Writes: one Lua script per operation ({@code LuaScript}, {@code Scripts}, {@code ConfigScripts}; the
 *       scripts under {@code io/lodestar/redis/scripts}) on the keys {@code Keys} lays out;
 *       {@code RedisServiceRegistry} with {@code Leases} ({@code WheelClock}), {@code RedisConfigService},
 *       {@code Calls}, {@code Sweeper} and {@code OutageEvidence}.</li>
 *   <li>Reads: {@code SyncedView} (the sync state machine) with {@code ViewEvents}, {@code ViewReads},
 *       {@code ViewTopic}, {@code TopicTable}, {@code ReadTable}, {@code ViewListener}, {@code ViewHealth} and a
 *       {@code ViewSource} per kind of topic ({@code ServiceSource}, {@code ConfigSource}, {@code IndexSource}); the
 *       parts that need no Redis in {@code io.lodestar.redis.internal.view}, time in
 *       {@code io.lodestar.redis.internal.time}. {@code RegistryReads} and {@code ConfigReads} read Redis;
 *       {@code LocalServiceDiscovery} answers from the view, {@code DirectServiceDiscovery} and
 *       {@code DirectConfigReader} from Redis.</li>
 * </ul>
 */
package io.lodestar.redis;
