package io.fencepost.lock.benchmarks.scenarios;

import io.fencepost.lock.benchmarks.Samples;
import io.fencepost.lock.benchmarks.wire.StatementTimeline.Call;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One round of the hand-off anatomy for one library: the median of each step on the path from a release to the next
 * holder's critical section, over the hand-offs of the round, in microseconds. The steps add up to the hand-off.
 *
 * @param handOffs hand-offs taken apart (the waiter was blocked in a statement when the release began)
 * @param skipped hand-offs left out: the next holder was not blocked in a statement when the release began
 * @param handOffUs from the start of {@code release()} to the next holder's critical section
 * @param beforeReleaseUs from the start of {@code release()} to its statement being sent
 * @param wakeUpUs from the release statement being sent to the waiter's blocked statement returning: the release's
 *     own work in the server up to the point where it wakes the waiter, and the wake-up
 * @param releaseStatementUs the release statement's own round trip, for reference (it runs beside the next steps)
 * @param waiterHopUs from the blocked statement returning to the grant statement being sent: the waiter's client
 * @param grantUs the grant statement's round trip, its durable commit included
 * @param afterGrantUs from the grant statement returning to the critical section: the client's bookkeeping
 */
public record HandOffPhases(
        int handOffs,
        int skipped,
        double perSecond,
        double handOffUs,
        double beforeReleaseUs,
        double wakeUpUs,
        double releaseStatementUs,
        double waiterHopUs,
        double grantUs,
        double afterGrantUs,
        String releaseKind,
        String waitKind,
        String grantKind) {

    /** A critical section of node {@code node}: when it began, and when its release began and returned. */
    record Section(int node, long startNanos, long releaseNanos, long releasedNanos) {}

    static HandOffPhases of(List<Section> sections, List<List<Call>> callsByNode, double seconds) {
        Samples handOff = new Samples();
        Samples beforeRelease = new Samples();
        Samples wakeUp = new Samples();
        Samples releaseStatement = new Samples();
        Samples waiterHop = new Samples();
        Samples grant = new Samples();
        Samples afterGrant = new Samples();
        Map<String, Integer> releaseKinds = new HashMap<>();
        Map<String, Integer> waitKinds = new HashMap<>();
        Map<String, Integer> grantKinds = new HashMap<>();
        int skipped = 0;
        for (int i = 1; i < sections.size(); i++) {
            Section from = sections.get(i - 1);
            Section to = sections.get(i);
            if (from.node() == to.node()) {
                continue;
            }
            List<Call> releaser = callsByNode.get(from.node());
            List<Call> waiter = callsByNode.get(to.node());
            Call release = firstStartingIn(releaser, from.releaseNanos(), from.releasedNanos());
            int grantAt = lastStartingBefore(waiter, to.startNanos());
            Call grantCall = grantAt < 0 ? null : waiter.get(grantAt);
            Call waited = grantAt < 1 ? null : waiter.get(grantAt - 1);
            if (release == null
                    || grantCall == null
                    || waited == null
                    || waited.startNanos() > from.releaseNanos()
                    || waited.endNanos() < release.startNanos()
                    || grantCall.startNanos() < waited.endNanos()) {
                skipped++;
                continue;
            }
            handOff.add(to.startNanos() - from.releaseNanos());
            beforeRelease.add(release.startNanos() - from.releaseNanos());
            wakeUp.add(waited.endNanos() - release.startNanos());
            releaseStatement.add(release.endNanos() - release.startNanos());
            waiterHop.add(grantCall.startNanos() - waited.endNanos());
            grant.add(grantCall.endNanos() - grantCall.startNanos());
            afterGrant.add(to.startNanos() - grantCall.endNanos());
            releaseKinds.merge(release.kind(), 1, Integer::sum);
            waitKinds.merge(waited.kind(), 1, Integer::sum);
            grantKinds.merge(grantCall.kind(), 1, Integer::sum);
        }
        return new HandOffPhases(
                handOff.size(),
                skipped,
                sections.size() / seconds,
                micros(handOff),
                micros(beforeRelease),
                micros(wakeUp),
                micros(releaseStatement),
                micros(waiterHop),
                micros(grant),
                micros(afterGrant),
                mostCommon(releaseKinds),
                mostCommon(waitKinds),
                mostCommon(grantKinds));
    }

    String show() {
        return String.format(
                "%d hand-offs (%d skipped), %.0f CS/s: hand-off %.0f µs = before release %.0f + wake-up %.0f"
                        + " + waiter %.0f + grant %.0f + after grant %.0f (release statement %.0f µs; %s / %s / %s)",
                handOffs,
                skipped,
                perSecond,
                handOffUs,
                beforeReleaseUs,
                wakeUpUs,
                waiterHopUs,
                grantUs,
                afterGrantUs,
                releaseStatementUs,
                releaseKind,
                waitKind,
                grantKind);
    }

    private static Call firstStartingIn(List<Call> calls, long from, long to) {
        for (Call call : calls) {
            if (call.startNanos() >= from && call.startNanos() <= to) {
                return call;
            }
        }
        return null;
    }

    private static int lastStartingBefore(List<Call> calls, long before) {
        int found = -1;
        for (int i = 0; i < calls.size() && calls.get(i).startNanos() < before; i++) {
            found = i;
        }
        return found;
    }

    private static double micros(Samples samples) {
        return samples.size() == 0 ? Double.NaN : samples.percentile(50) / 1_000.0;
    }

    private static String mostCommon(Map<String, Integer> kinds) {
        return kinds.entrySet().stream()
                .max(Map.Entry.comparingByValue())
                .map(Map.Entry::getKey)
                .orElse("–");
    }
}
