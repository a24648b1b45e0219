package io.fencepost.lock.spring.autoconfigure;

import io.fencepost.lock.jdbc.LockSchemaException;
import io.fencepost.lock.jdbc.SchemaInitializer;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.core.env.Environment;

/** Explains a missing, misshapen or uncreatable lock table and what to do about it. */
final class LockSchemaFailureAnalyzer extends AbstractFailureAnalyzer<LockSchemaException> {

    private final Environment environment;

    LockSchemaFailureAnalyzer(Environment environment) {
        this.environment = environment;
    }

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, LockSchemaException cause) {
        String table = cause.tableName();
        String mode =
                environment != null ? environment.getProperty("fencepost.jdbc.initialize-schema", "create") : "create";
        String action;
        if ("create".equalsIgnoreCase(mode)) {
            action = "Fencepost tried to create or upgrade its lock table '" + table + "' with its own Flyway migration"
                    + " (history table '" + table + "_schema_history') and failed. Check that the database is"
                    + " reachable and that the DataSource's role may create a table and a sequence in the first"
                    + " schema of its search_path. Or create them yourself from " + SchemaInitializer.SCRIPT_RESOURCE
                    + " in the lock-jdbc jar (for example as one of your own migrations) and set"
                    + " fencepost.jdbc.initialize-schema=validate.";
        } else {
            action = "Create the lock table '" + table + "' and its sequence '" + table + "_fence_seq': either let"
                    + " Fencepost do it with its own Flyway migration by setting fencepost.jdbc.initialize-schema=create,"
                    + " or run " + SchemaInitializer.SCRIPT_RESOURCE + " from the lock-jdbc jar (for example as one of"
                    + " your own migrations). If the table lives in another schema, put that schema on the"
                    + " connection's search_path; if it has another name, set fencepost.jdbc.table-name.";
        }
        return new FailureAnalysis(
                "Fencepost's lock table cannot be used (fencepost.jdbc.initialize-schema=" + mode.toLowerCase() + "): "
                        + cause.getMessage(),
                action,
                cause);
    }
}
