package io.fencepost.lock.benchmarks.scenarios;

import io.fencepost.lock.benchmarks.KeyedSeries;
import io.fencepost.lock.benchmarks.clients.SetVariant;
import java.util.Map;

/**
 * The sets scenario for one set size: the uncontended cycles per variant and round, the counted cycle of the
 * variants on PostgreSQL, and the contended rounds (two clients on overlapping sets; a cycle result whose latencies
 * are the acquire's wait).
 */
public record SetsResult(
        int keys,
        KeyedSeries<SetVariant, CycleResult> uncontended,
        Map<SetVariant, SetCounts> counted,
        KeyedSeries<SetVariant, CycleResult> contended) {}
