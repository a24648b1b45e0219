package io.fencepost.lock.benchmarks;

import io.fencepost.lock.benchmarks.scenarios.AnnotationResult;
import io.fencepost.lock.benchmarks.scenarios.ContendedResult;
import io.fencepost.lock.benchmarks.scenarios.CountingResult;
import io.fencepost.lock.benchmarks.scenarios.CycleResult;
import io.fencepost.lock.benchmarks.scenarios.FailoverResult;
import io.fencepost.lock.benchmarks.scenarios.FencedTransactionResult;
import io.fencepost.lock.benchmarks.scenarios.HandOffPhases;
import io.fencepost.lock.benchmarks.scenarios.RenewalResult;
import io.fencepost.lock.benchmarks.scenarios.SetsResult;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Everything one run measured, for the report. Scenarios that did not run stay null or empty. */
public final class Results {

    public ZonedDateTime startedAt;

    public Duration duration;

    public Map<String, String> environment = new LinkedHashMap<>();

    public Map<String, String> versions = new LinkedHashMap<>();

    public Series<CycleResult> sameKey;

    public Series<CycleResult> distinctKeys;

    public Series<CycleResult> losing;

    public Map<Integer, Series<ContendedResult>> contended = new LinkedHashMap<>();

    public long clockCheckNanos;

    /** One node (client instance) per thread on one key, per node count. */
    public Map<Integer, Series<ContendedResult>> nodes = new LinkedHashMap<>();

    /** Node counts of the nodes scenario that did not fit under the server's connection limit, and why. */
    public Map<Integer, String> nodesSkipped = new LinkedHashMap<>();

    /** Threads of one client each on its own key, per thread count. */
    public Map<Integer, Series<CycleResult>> keyScaling = new LinkedHashMap<>();

    /** Two threads (two clients) per key, per key count. */
    public Map<Integer, Series<CycleResult>> keyPairs = new LinkedHashMap<>();

    public List<RenewalResult> renewal = List.of();

    public List<AnnotationResult> annotation = List.of();

    public List<FencedTransactionResult> fencedTransaction = List.of();

    public List<CountingResult> counting = List.of();

    public Series<CycleResult> sharedAlone;

    public Series<CycleResult> sharedReaders;

    public Series<CycleResult> permitsAlone;

    public Series<CycleResult> permitsThreads;

    public Series<CycleResult> extend;

    public List<FailoverResult> failover = List.of();

    /** Several keys at once, per set size. */
    public List<SetsResult> sets = List.of();

    /** Null when the hand-off phases were not measured. */
    public Series<HandOffPhases> handOffPhases;
}
