package io.fencepost.lock.spring.autoconfigure;

import io.fencepost.lock.spring.aop.InvalidDistributedLockException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Explains a {@code @DistributedLock} that cannot be used as written and how to write it. */
final class InvalidDistributedLockFailureAnalyzer extends AbstractFailureAnalyzer<InvalidDistributedLockException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, InvalidDistributedLockException cause) {
        return new FailureAnalysis(
                cause.getMessage(),
                "Fix the @DistributedLock annotation on " + cause.method() + ". The key is a SpEL expression over the"
                        + " method's parameters by name (#id, or #p0 by position), #root.method, #root.target and beans"
                        + " (@beanName); quote literals, as in key = \"'nightly-report'\" or key = \"'invoice:' +"
                        + " #id\". Durations are written 30s, 500ms, 1m or PT30S and may use ${...} placeholders. The"
                        + " method must be a public (or, with class proxies, protected or package-private) instance"
                        + " method called through the bean's proxy.",
                cause);
    }
}
