package io.fencepost.lock.spring.autoconfigure;

import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.jdbc.datasource.TransactionAwareDataSourceProxy;

/** Which {@code DataSource} Fencepost's statements run on: the same for the lock manager and its health check. */
final class LockDataSources {

    private LockDataSources() {}

    /** The one qualified {@link LockDataSource @LockDataSource} if any, else the application's, unwrapped. */
    static DataSource resolve(ObjectProvider<DataSource> dataSource, ObjectProvider<DataSource> lockDataSource) {
        return independent(lockDataSource.getIfAvailable(dataSource::getObject));
    }

    /**
     * Lock statements must commit on their own: through a transaction-aware proxy, an acquire inside
     * {@code @Transactional} would join the caller's transaction and be invisible to others until it commits, and a
     * release would be undone by its rollback.
     */
    static DataSource independent(DataSource dataSource) {
        DataSource current = dataSource;
        while (current instanceof TransactionAwareDataSourceProxy proxy && proxy.getTargetDataSource() != null) {
            current = proxy.getTargetDataSource();
        }
        return current;
    }
}
