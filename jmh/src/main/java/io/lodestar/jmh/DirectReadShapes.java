package io.lodestar.jmh;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.NestedMultiOutput;
import io.lettuce.core.protocol.AsyncCommand;
import io.lettuce.core.protocol.Command;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import io.lodestar.redis.BenchmarkAccess;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * An experiment behind a design decision (docs/benchmarks/profiles/direct-read/README.md): what a direct read of one
 * service costs in each shape it could take on the wire, each sent by plain Lettuce and left undecoded, beside
 * {@code DiscoveryReadBenchmark.directGetInstances} (the read Lodestar does) in the same run. The service has
 * {@code instances} persistent instances, set up as {@link DiscoveryReadBenchmark.Direct} does.
 * <ul>
 *   <li>{@code hgetall}: a bare {@code HGETALL} by the sync API (the floor, decoded into a map);
 *       {@code hgetallAsNested}: the same dispatched with the nested output Lodestar's script reads use;</li>
 *   <li>{@code evalshaHgetallOnly}: a script that only returns {@code HGETALL} (what running a script at all
 *       costs); {@code evalshaReadScript}: Lodestar's read script ({@code read_service_page.lua}) by plain
 *       {@code EVALSHA} with the keys and arguments a direct read passes;</li>
 *   <li>{@code pipelinedStampScanStamp}: no script: {@code MGET} of revision, digest and incarnation, {@code HSCAN
 *       0 COUNT 2000}, the {@code MGET} again, written as one batch (a read accepted when both stamps agree;
 *       no overdue check); {@code pipelinedWithOverdueCheck}: the same plus {@code ZRANGE deadlines 0 0
 *       WITHSCORES} and {@code TIME} between the stamps, what a script-less read needs to leave out the
 *       overdue.</li>
 * </ul>
 * Not run by {@code jmh/run.sh}. Run:
 * <pre>
 * java -jar jmh/target/benchmarks.jar 'DirectReadShapes|DiscoveryReadBenchmark.directGetInstances' \
 *   -p instances=10 -f 3 -wi 5 -i 5 -rf json -rff shapes.json
 * </pre>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(3)
public class DirectReadShapes {

    /** The service, the raw connection, and both scripts loaded. */
    @State(Scope.Benchmark)
    public static class Shapes {
        @Param({"10"})
        public int instances;

        DiscoveryReadBenchmark.Direct direct = new DiscoveryReadBenchmark.Direct();
        String[] readKeys;
        RawRedis.Script readPage;
        String hgetallSha;

        /** Registers through Lodestar, loads the scripts. */
        @Setup(Level.Trial)
        public void setUp() {
            direct.instances = instances;
            direct.setUp();
            readKeys = BenchmarkAccess.serviceReadKeys(direct.redis.namespace(), Fixtures.SERVICE);
            readPage = RawRedis.Script.load(direct.raw, "read_service_page");
            hgetallSha = direct.raw.scriptLoad("return redis.call('HGETALL', KEYS[1])");
        }

        /** Stops the clients and the server. */
        @TearDown(Level.Trial)
        public void tearDown() {
            direct.tearDown();
        }
    }

    /** @return a bare HGETALL, decoded into a map by the sync API */
    @Benchmark
    public Object hgetall(Shapes s) {
        return s.direct.raw.hgetall(s.readKeys[0]);
    }

    /** @return HGETALL with the nested output */
    @Benchmark
    public Object hgetallAsNested(Shapes s) throws Exception {
        AsyncCommand<String, String, List<Object>> c = command(CommandType.HGETALL, args().addKey(s.readKeys[0]));
        s.direct.connection.dispatch(c);
        return c.get();
    }

    /** @return a script that only returns HGETALL */
    @Benchmark
    public Object evalshaHgetallOnly(Shapes s) {
        return s.direct.raw.evalsha(s.hgetallSha, ScriptOutputType.MULTI, new String[] {s.readKeys[0]});
    }

    /** @return read_service_page.lua as a direct read runs it, undecoded */
    @Benchmark
    public Object evalshaReadScript(Shapes s) {
        return s.readPage.run(s.direct.raw, s.readKeys, "0", "2000", "1");
    }

    /** @return MGET, HSCAN, MGET in one write */
    @Benchmark
    public Object pipelinedStampScanStamp(Shapes s) throws Exception {
        return pipelined(s, false);
    }

    /** @return MGET, HSCAN, ZRANGE, TIME, MGET in one write */
    @Benchmark
    public Object pipelinedWithOverdueCheck(Shapes s) throws Exception {
        return pipelined(s, true);
    }

    private static Object pipelined(Shapes s, boolean overdue) throws InterruptedException, ExecutionException {
        String[] k = s.readKeys; // read_service_page.lua's keys: instances, deadlines, revision, digest, incarnation
        var before = stamp(k);
        var scan = command(CommandType.HSCAN, args().addKey(k[0]).add("0").add("COUNT").add(2000));
        var after = stamp(k);
        if (overdue) {
            var earliest = command(CommandType.ZRANGE, args().addKey(k[1]).add(0).add(0).add("WITHSCORES"));
            var time = command(CommandType.TIME, args());
            s.direct.connection.dispatch(List.of(before, scan, earliest, time, after));
        } else {
            s.direct.connection.dispatch(List.of(before, scan, after));
        }
        after.get();
        return scan.get();
    }

    /** The service's revision, digest and incarnation, read together: a read is accepted when two agree. */
    private static AsyncCommand<String, String, List<Object>> stamp(String[] readKeys) {
        return command(CommandType.MGET, args().addKeys(readKeys[2], readKeys[3], readKeys[4]));
    }

    private static CommandArgs<String, String> args() {
        return new CommandArgs<>(StringCodec.UTF8);
    }

    private static AsyncCommand<String, String, List<Object>> command(CommandType type,
                                                                      CommandArgs<String, String> args) {
        return new AsyncCommand<>(new Command<>(type, new NestedMultiOutput<>(StringCodec.UTF8), args));
    }
}
