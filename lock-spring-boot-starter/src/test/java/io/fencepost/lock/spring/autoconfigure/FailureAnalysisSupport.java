package io.fencepost.lock.spring.autoconfigure;

import java.util.List;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.core.env.Environment;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.io.support.SpringFactoriesLoader;
import org.springframework.core.io.support.SpringFactoriesLoader.ArgumentResolver;
import org.springframework.core.io.support.SpringFactoriesLoader.FailureHandler;

/** Analyzes a start-up failure with Fencepost's failure analyzers as registered in {@code spring.factories}. */
final class FailureAnalysisSupport {

    private FailureAnalysisSupport() {}

    static FailureAnalysis analyze(Throwable failure) {
        return analyze(failure, new StandardEnvironment());
    }

    static FailureAnalysis analyze(Throwable failure, Environment environment) {
        for (FailureAnalyzer analyzer : analyzers(environment)) {
            if (analyzer.getClass().getName().startsWith("io.fencepost.")) {
                FailureAnalysis analysis = analyzer.analyze(failure);
                if (analysis != null) {
                    return analysis;
                }
            }
        }
        throw new AssertionError("no Fencepost failure analyzer explains " + failure);
    }

    /** As Spring Boot reports the failure: the first of all registered analyzers, Boot's own too, that explains it. */
    static FailureAnalysis analyzeAsBootDoes(Throwable failure) {
        for (FailureAnalyzer analyzer : analyzers(new StandardEnvironment())) {
            FailureAnalysis analysis = analyzer.analyze(failure);
            if (analysis != null) {
                return analysis;
            }
        }
        throw new AssertionError("no failure analyzer explains " + failure);
    }

    /** Those that need more than the environment (a bean factory, say) are left out. */
    private static List<FailureAnalyzer> analyzers(Environment environment) {
        return SpringFactoriesLoader.forDefaultResourceLocation(FailureAnalysisSupport.class.getClassLoader())
                .load(
                        FailureAnalyzer.class,
                        ArgumentResolver.of(Environment.class, environment),
                        FailureHandler.handleMessage((message, e) -> {}));
    }
}
