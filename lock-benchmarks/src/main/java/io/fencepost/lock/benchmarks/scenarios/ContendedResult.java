package io.fencepost.lock.benchmarks.scenarios;

import io.fencepost.lock.benchmarks.Samples;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * One contended round of one library, from the critical sections of both JVMs merged in the order they were
 * entered. Times in milliseconds.
 *
 * @param perSecond critical sections entered within the window, per second
 * @param handoffP50Ms from the start of a release to the next critical section, when that one is another thread's
 * @param crossJvmHandoffP50Ms the same, only hand-offs to a thread of the other JVM
 * @param crossJvmShare the share of hand-offs to another thread that went to the other JVM
 * @param waitP50Ms from calling acquire to holding the key, every acquisition
 * @param reacquireShare the share of critical sections followed by another one of the same thread
 * @param busierJvmShare the share of all critical sections that the JVM with more of them had (0.5 is even)
 * @param overlaps critical sections entered before the previous one began its release (must be 0)
 * @param timeouts waits given up after the window (they enter the wait percentiles with what they waited)
 */
public record ContendedResult(
        int threads,
        long sections,
        double perSecond,
        double handoffP50Ms,
        double crossJvmHandoffP50Ms,
        double crossJvmShare,
        double waitP50Ms,
        double waitP99Ms,
        double reacquireShare,
        double busierJvmShare,
        long overlaps,
        long timeouts,
        long errors) {

    static ContendedResult of(
            int threads,
            List<ContendedWorker.Event> all,
            List<Long> timedOutWaits,
            long startAt,
            long windowNanos,
            long errors) {
        long endAt = startAt + windowNanos;
        List<ContendedWorker.Event> events = new ArrayList<>(all);
        events.sort(Comparator.comparingLong(ContendedWorker.Event::acquired));
        Samples waits = new Samples(events.size() + timedOutWaits.size() + 1);
        timedOutWaits.forEach(waits::add);
        Samples handoffs = new Samples();
        Samples crossJvm = new Samples();
        long inWindow = 0;
        long pairs = 0;
        long sameThread = 0;
        long overlaps = 0;
        long firstJvm = 0;
        for (int i = 0; i < events.size(); i++) {
            ContendedWorker.Event e = events.get(i);
            waits.add(e.acquired() - e.waitStart());
            if (e.acquired() - endAt <= 0) {
                inWindow++;
                if (e.jvm() == 1) {
                    firstJvm++;
                }
            }
            if (i == 0) {
                continue;
            }
            ContendedWorker.Event previous = events.get(i - 1);
            if (e.acquired() - previous.releaseStart() < 0) {
                overlaps++;
            }
            if (e.acquired() - endAt > 0) {
                continue; // the drain after the window: nobody re-acquires any more
            }
            pairs++;
            boolean sameJvm = e.jvm() == previous.jvm();
            if (sameJvm && e.thread() == previous.thread()) {
                sameThread++;
            } else {
                long handoff = e.acquired() - previous.releaseStart();
                handoffs.add(handoff);
                if (!sameJvm) {
                    crossJvm.add(handoff);
                }
            }
        }
        return new ContendedResult(
                threads,
                inWindow,
                inWindow / (windowNanos / 1e9),
                handoffs.percentile(50) / 1e6,
                crossJvm.percentile(50) / 1e6,
                handoffs.size() == 0 ? Double.NaN : (double) crossJvm.size() / handoffs.size(),
                waits.percentile(50) / 1e6,
                waits.percentile(99) / 1e6,
                pairs == 0 ? Double.NaN : (double) sameThread / pairs,
                inWindow == 0 ? Double.NaN : (double) Math.max(firstJvm, inWindow - firstJvm) / inWindow,
                overlaps,
                timedOutWaits.size(),
                errors);
    }

    String show() {
        return "%,.0f CS/s, hand-off p50 %.2f ms (other JVM %.2f ms, %.0f%%), wait p99 %.1f ms, re-acquired %.0f%%, busier JVM %.0f%%%s"
                .formatted(
                        perSecond,
                        handoffP50Ms,
                        crossJvmHandoffP50Ms,
                        crossJvmShare * 100,
                        waitP99Ms,
                        reacquireShare * 100,
                        busierJvmShare * 100,
                        overlaps + timeouts + errors > 0
                                ? " [overlaps " + overlaps + ", timeouts " + timeouts + ", errors " + errors + "]"
                                : "");
    }
}
