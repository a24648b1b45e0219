package io.fencepost.lock.benchmarks.scenarios;

import io.fencepost.lock.benchmarks.Harness;
import io.fencepost.lock.benchmarks.KeyedSeries;
import io.fencepost.lock.benchmarks.Samples;
import io.fencepost.lock.benchmarks.Settings;
import io.fencepost.lock.benchmarks.clients.ClientContext;
import io.fencepost.lock.benchmarks.clients.LockClient;
import io.fencepost.lock.benchmarks.clients.SetClient;
import io.fencepost.lock.benchmarks.clients.SetVariant;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

/**
 * Several keys at once (issue 33): Fencepost's {@code acquireAll} next to one {@code acquire} per key and to
 * Redisson's {@code RedissonMultiLock}, for sets of {@link #SIZES} keys. First one thread takes and releases the same
 * free set back to back (and the Fencepost variants are counted: statements, WAL flushes); then two clients, one
 * thread each, take overlapping sets in opposite orders: the first {@code [k0 … kn-1]}, the second {@code [kn … k1]}.
 */
public final class SetsScenario {

    /** The set sizes measured. */
    static final List<Integer> SIZES = List.of(2, 8);

    /**
     * How long past the end of a contended window a started wait may go on. A set changes hands in milliseconds; a
     * wait this long is one that would not end by itself.
     */
    public static final Duration GRACE = Duration.ofSeconds(1);

    private final Harness harness;

    public SetsScenario(Harness harness) {
        this.harness = harness;
    }

    public List<SetsResult> run() throws Exception {
        ClientContext context = harness.context();
        List<SetVariant> variants = Arrays.stream(SetVariant.values())
                .filter(v -> harness.settings().uses(v.library()) && v.runsIn(context))
                .toList();
        // The fsynced Redis uncontended only: contended, it would lengthen every round for what the other rows show.
        List<SetVariant> contending = variants.stream()
                .filter(v -> v != SetVariant.REDISSON_MULTI_FSYNC)
                .toList();
        Map<SetVariant, SetClient> clients = new EnumMap<>(SetVariant.class);
        Map<SetVariant, SetClient> others = new EnumMap<>(SetVariant.class);
        try {
            for (SetVariant variant : variants) {
                clients.put(variant, variant.open(context));
            }
            for (SetVariant variant : contending) {
                others.put(variant, variant.open(context));
            }
            List<SetsResult> results = new ArrayList<>();
            for (int size : SIZES) {
                KeyedSeries<SetVariant, CycleResult> uncontended = uncontended(size, variants, clients);
                Map<SetVariant, SetCounts> counted = counted(size, variants);
                KeyedSeries<SetVariant, CycleResult> contended = contended(size, contending, clients, others);
                results.add(new SetsResult(size, uncontended, counted, contended));
            }
            return results;
        } finally {
            clients.values().forEach(SetClient::close);
            others.values().forEach(SetClient::close);
        }
    }

    private KeyedSeries<SetVariant, CycleResult> uncontended(
            int size, List<SetVariant> variants, Map<SetVariant, SetClient> clients) throws Exception {
        Settings settings = harness.settings();
        return Rounds.over(
                harness,
                "sets/" + size + " uncontended",
                settings.shortRounds(),
                variants,
                SetVariant::id,
                series(),
                (variant, round) ->
                        cycles(clients.get(variant), keys(variant, size, "free", 0, size), settings.cycleWindow()),
                CycleResult::show);
    }

    /** The statements and WAL flushes of an uncontended cycle, for the variants on PostgreSQL. */
    private Map<SetVariant, SetCounts> counted(int size, List<SetVariant> variants) throws Exception {
        Map<SetVariant, SetCounts> counted = new LinkedHashMap<>();
        for (SetVariant variant : variants) {
            if (!variant.onPostgres()) {
                continue;
            }
            SetCounts counts = new SetCounting(harness).count(variant, keys(variant, size, "free", 0, size));
            harness.log("sets/" + size + " counting " + variant.id()
                    + ": %.2f + %.2f statements (acquire + release), %.2f round trips (%s); %.2f WAL flushes per cycle,"
                            .formatted(
                                    counts.acquireStatements(),
                                    counts.releaseStatements(),
                                    counts.roundTrips(),
                                    counts.breakdown(),
                                    counts.walFlushes())
                    + " %d rows written in other databases meanwhile".formatted(counts.rowsWrittenElsewhere()));
            counted.put(variant, counts);
        }
        return counted;
    }

    private KeyedSeries<SetVariant, CycleResult> contended(
            int size, List<SetVariant> variants, Map<SetVariant, SetClient> first, Map<SetVariant, SetClient> second)
            throws Exception {
        Settings settings = harness.settings();
        return Rounds.over(
                harness,
                "sets/" + size + " contended",
                settings.rounds(),
                variants,
                SetVariant::id,
                series(),
                (variant, round) -> {
                    List<String> reversed = new ArrayList<>(keys(variant, size, "shared", 1, size + 1));
                    Collections.reverse(reversed);
                    return SetContention.run(
                            first.get(variant),
                            keys(variant, size, "shared", 0, size),
                            second.get(variant),
                            reversed,
                            settings.contendedWindow());
                },
                CycleResult::show);
    }

    /** One thread taking and releasing the same free set back to back for the window. */
    private static CycleResult cycles(SetClient client, List<String> keys, Duration window) throws Exception {
        Samples total = new Samples(16 * 1024);
        Samples acquire = new Samples(16 * 1024);
        Samples release = new Samples(16 * 1024);
        long failures = 0;
        long start = System.nanoTime();
        long end = start + window.toNanos();
        long now = start;
        while (now < end) {
            long t0 = System.nanoTime();
            LockClient.Held held = client.acquire(keys, UncontendedScenario.WAIT);
            long t1 = System.nanoTime();
            if (held == null) {
                failures++;
                now = t1;
                continue;
            }
            held.release();
            now = System.nanoTime();
            total.add(now - t0);
            acquire.add(t1 - t0);
            release.add(now - t1);
        }
        return CycleResult.of(total.size(), now - start, total, acquire, release, failures);
    }

    /** Keys {@code from} (inclusive) to {@code to} of one variant's set, in ascending order. */
    private static List<String> keys(SetVariant variant, int size, String kind, int from, int to) {
        return IntStream.range(from, to)
                .mapToObj(i -> "bench:sets:" + variant.id() + ":" + size + ":" + kind + ":k%02d".formatted(i))
                .toList();
    }

    private static KeyedSeries<SetVariant, CycleResult> series() {
        return new KeyedSeries<>(new EnumMap<>(SetVariant.class));
    }
}
