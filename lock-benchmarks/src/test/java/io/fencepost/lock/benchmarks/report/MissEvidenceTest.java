package io.fencepost.lock.benchmarks.report;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencepost.lock.benchmarks.Results;
import io.fencepost.lock.benchmarks.Series;
import io.fencepost.lock.benchmarks.clients.Library;
import io.fencepost.lock.benchmarks.scenarios.AnnotationResult;
import io.fencepost.lock.benchmarks.scenarios.ContendedResult;
import io.fencepost.lock.benchmarks.scenarios.CountingResult;
import io.fencepost.lock.benchmarks.scenarios.CycleResult;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The evidence's prose, from its resource: every placeholder it names is one the paragraph can fill. */
class MissEvidenceTest {

    private final Results r = everyLibraryMeasured();

    private final MissEvidence evidence = new MissEvidence(r);

    @Test
    void everyParagraphIsFilledWithTheRunsFigures() {
        List<String> paragraphs = List.of(
                evidence.throughputWhy(),
                evidence.competitorWhy(Library.SHEDLOCK, 2.0),
                evidence.losingWhy(),
                evidence.annotationWhy(),
                evidence.nodesWhy(8),
                evidence.contendedWhy(8));
        assertThat(paragraphs).allSatisfy(p -> assertThat(p).startsWith("**").doesNotContain("{", "}", "–"));
        assertThat(evidence.throughputWhy())
                .startsWith("**Uncontended cycle.** A Fencepost cycle takes 200 µs at the median: acquire 120 µs,"
                        + " release 80.0 µs. The raw durable ceiling takes 200 µs");
        assertThat(evidence.competitorWhy(Library.SHEDLOCK, 2.0))
                .contains("ShedLock JdbcTemplate, usingDbTime cycles in 200 µs", "2.0× would need");
        assertThat(evidence.nodesWhy(8))
                .startsWith("**8 nodes.** Fencepost: 1,000 CS/s")
                .contains("The durable floor (", "Redisson on a Redis that fsyncs every write made 1,000 CS/s");
    }

    @Test
    void whatTheRunDidNotMeasureIsLeftOut() {
        assertThat(evidence.nodesWhy(16)).isEmpty();
        r.sameKey = cycles(Library.FENCEPOST, Library.RAW);
        assertThat(evidence.throughputWhy())
                .doesNotContain("asynchronous release takes", "`SELECT 1`", "store called directly");
    }

    private static Results everyLibraryMeasured() {
        Results r = new Results();
        Library[] all = Library.values();
        r.sameKey = cycles(all);
        r.losing = cycles(all);
        r.contended.put(8, contended(all));
        r.nodes.put(8, contended(all));
        List<CountingResult> counting = new ArrayList<>();
        for (Library library : all) {
            counting.add(new CountingResult(
                    library, 2, 2, "INSERT + DELETE", 2, 0, "", 1, 500, 1, 1, "SELECT", 0, 1, 1, "UPDATE"));
        }
        r.counting = counting;
        r.annotation = List.of(new AnnotationResult(100, 1_000, 2_000, 100, 1_000, 2_000));
        return r;
    }

    private static Series<CycleResult> cycles(Library... libraries) {
        Series<CycleResult> s = new Series<>();
        for (Library library : libraries) {
            s.add(library, new CycleResult(5_000, 1, 5_000, 200, 400, 120, 80, 0));
        }
        return s;
    }

    private static Series<ContendedResult> contended(Library... libraries) {
        Series<ContendedResult> s = new Series<>();
        for (Library library : libraries) {
            s.add(library, new ContendedResult(8, 1_000, 1_000, 1, 2, 0.5, 5, 20, 0.1, 0.6, 0, 0, 0));
        }
        return s;
    }
}
