package io.fencepost.lock.spring.aop;

import io.fencepost.lock.Lease;
import io.fencepost.lock.LeaseInfo;
import io.fencepost.lock.LockManager;
import io.fencepost.lock.LockOptions;
import io.fencepost.lock.MultiLease;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

/** A {@link LockManager} that remembers every key and options it was asked for, and delegates. */
final class RecordingLockManager implements LockManager {

    record Call(String key, LockOptions options) {}

    private final LockManager delegate;

    private final List<Call> calls = new CopyOnWriteArrayList<>();

    RecordingLockManager(LockManager delegate) {
        this.delegate = delegate;
    }

    List<Call> calls() {
        return calls;
    }

    Call lastCall() {
        return calls.get(calls.size() - 1);
    }

    @Override
    public Lease acquire(String key, LockOptions options) {
        calls.add(new Call(key, options));
        return delegate.acquire(key, options);
    }

    @Override
    public Optional<Lease> tryAcquire(String key, LockOptions options) {
        calls.add(new Call(key, options));
        return delegate.tryAcquire(key, options);
    }

    @Override
    public MultiLease acquireAll(Collection<String> keys, LockOptions options) {
        keys.forEach(key -> calls.add(new Call(key, options)));
        return delegate.acquireAll(keys, options);
    }

    @Override
    public Optional<MultiLease> tryAcquireAll(Collection<String> keys, LockOptions options) {
        keys.forEach(key -> calls.add(new Call(key, options)));
        return delegate.tryAcquireAll(keys, options);
    }

    @Override
    public Optional<LeaseInfo> inspect(String key) {
        return delegate.inspect(key);
    }
}
