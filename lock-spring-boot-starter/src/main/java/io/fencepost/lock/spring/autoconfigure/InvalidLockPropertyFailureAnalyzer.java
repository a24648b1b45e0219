package io.fencepost.lock.spring.autoconfigure;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Names the invalid {@code fencepost.*} property, its value, the rule it breaks and what to set instead. */
final class InvalidLockPropertyFailureAnalyzer extends AbstractFailureAnalyzer<InvalidLockPropertyException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, InvalidLockPropertyException cause) {
        return new FailureAnalysis(cause.getMessage(), cause.fix(), cause);
    }
}
