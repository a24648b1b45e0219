package io.fencepost.lock.benchmarks.report;

import static io.fencepost.lock.benchmarks.clients.Library.ADVISORY;
import static io.fencepost.lock.benchmarks.clients.Library.FENCEPOST;
import static io.fencepost.lock.benchmarks.clients.Library.RAW;
import static io.fencepost.lock.benchmarks.clients.Library.RAW_ASYNC;
import static io.fencepost.lock.benchmarks.clients.Library.REDISSON;
import static io.fencepost.lock.benchmarks.clients.Library.SHEDLOCK;
import static io.fencepost.lock.benchmarks.clients.Library.SPRING_INTEGRATION;

import io.fencepost.lock.benchmarks.Results;
import io.fencepost.lock.benchmarks.Series;
import io.fencepost.lock.benchmarks.clients.Library;
import io.fencepost.lock.benchmarks.scenarios.ContendedResult;
import io.fencepost.lock.benchmarks.scenarios.CycleResult;
import java.util.ArrayList;
import java.util.List;

/**
 * Builds {@code docs/benchmarks.svg} from one run's results: uncontended and contended throughput, and the contended
 * wait tail.
 */
final class ReportChart {

    private final Results r;

    ReportChart(Results r) {
        this.r = r;
    }

    String render() {
        SvgChart chart = new SvgChart("Fencepost and alternatives on one machine ("
                + r.environment.getOrDefault("CPU", "") + "), " + r.startedAt.toLocalDate());
        if (r.sameKey != null) {
            List<Library> libs =
                    present(r.sameKey, RAW, RAW_ASYNC, FENCEPOST, SHEDLOCK, SPRING_INTEGRATION, REDISSON, ADVISORY);
            boolean distinct = r.distinctKeys != null;
            double[][] values = new double[libs.size()][distinct ? 2 : 1];
            for (int i = 0; i < libs.size(); i++) {
                values[i][0] = r.sameKey.median(libs.get(i), CycleResult::perSecond);
                if (distinct) {
                    values[i][1] = r.distinctKeys.median(libs.get(i), CycleResult::perSecond);
                }
            }
            chart.add(new SvgChart.Panel(
                    "Uncontended acquire + release cycles per second (one thread)",
                    labels(libs),
                    distinct ? List.of("same key", "a new key every cycle") : List.of("same key"),
                    values,
                    false,
                    v -> Fmt.count(v) + "/s",
                    FENCEPOST.label()));
        }
        if (!r.contended.isEmpty()) {
            List<Library> libs = contendedLibraries();
            List<String> series = new ArrayList<>();
            r.contended.keySet().forEach(t -> series.add(t + " threads"));
            double[][] cs = new double[libs.size()][series.size()];
            double[][] p99 = new double[libs.size()][series.size()];
            for (int i = 0; i < libs.size(); i++) {
                int s = 0;
                for (Series<ContendedResult> byThreads : r.contended.values()) {
                    cs[i][s] = byThreads.median(libs.get(i), ContendedResult::perSecond);
                    p99[i][s] = byThreads.median(libs.get(i), ContendedResult::waitP99Ms);
                    s++;
                }
            }
            chart.add(new SvgChart.Panel(
                    "Contended: critical sections per second, threads on one key across 2 JVMs",
                    labels(libs),
                    series,
                    cs,
                    false,
                    v -> Fmt.count(v) + "/s",
                    FENCEPOST.label()));
            chart.add(new SvgChart.Panel(
                    "Contended: wait p99 (ms, log scale; shorter is better)",
                    labels(libs),
                    series,
                    p99,
                    true,
                    v -> Fmt.num(v) + " ms",
                    FENCEPOST.label()));
        }
        return chart.render();
    }

    private List<Library> contendedLibraries() {
        List<Library> libs = new ArrayList<>();
        for (Library library : Library.values()) {
            if (r.contended.values().stream().anyMatch(s -> s.has(library))) {
                libs.add(library);
            }
        }
        return libs;
    }

    private static List<Library> present(Series<?> s, Library... libraries) {
        List<Library> out = new ArrayList<>();
        for (Library library : libraries) {
            if (s.has(library)) {
                out.add(library);
            }
        }
        return out;
    }

    private static List<String> labels(List<Library> libraries) {
        return libraries.stream().map(Library::label).toList();
    }
}
