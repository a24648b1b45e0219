package io.fencepost.lock.spring.autoconfigure;

import io.fencepost.lock.jdbc.LockTableSplitException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Explains a start-up refused because another lock table of the application is in use, and what to do about it. */
final class LockTableSplitFailureAnalyzer extends AbstractFailureAnalyzer<LockTableSplitException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, LockTableSplitException cause) {
        String others = String.join(", ", cause.otherTables());
        String whose = cause.applicationName() == null
                ? "Without spring.application.name, a lease of any application counts."
                : "Only leases of holders named '" + cause.applicationName() + "@...' (spring.application.name) count.";
        return new FailureAnalysis(
                "Fencepost's lock table '" + cause.tableName() + "' (fencepost.jdbc.table-name) is not the lock"
                        + " table in use by the other instances: " + cause.getMessage(),
                "Set fencepost.jdbc.table-name to the table the other instances use (" + others + ") on every"
                        + " instance, and give them the same search_path; instances that lock in different tables do"
                        + " not exclude each other. If the other table is what a rename left behind, stop its"
                        + " instances and drop it; a table counts as in use while a lock manager runs on it (its"
                        + " presence row) and while it holds a lease that is live or ended in the last 24 hours. "
                        + whose + " If separate lock tables are intended, set"
                        + " fencepost.jdbc.allow-other-lock-tables=true: the locks health indicator then names the"
                        + " other tables.",
                cause);
    }
}
