package io.fencepost.lock.core;

import io.fencepost.lock.Lease;
import io.fencepost.lock.spi.LockListener;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** Records listener calls as short strings, such as {@code "lost:name:key"}. */
final class RecordingListener implements LockListener {

    final List<String> events = new CopyOnWriteArrayList<>();

    @Override
    public void acquired(String name, Lease lease, Duration waited) {
        events.add("acquired:" + name + ":" + lease.key());
    }

    @Override
    public void notAcquired(String name, String key, Duration waited, boolean skipped) {
        events.add("notAcquired:" + name + ":" + key);
    }

    @Override
    public void released(String name, Lease lease, boolean removed, Duration held) {
        events.add("released:" + name + ":" + lease.key() + ":" + removed);
    }

    @Override
    public void renewed(String name, Lease lease) {
        events.add("renewed:" + name + ":" + lease.key());
    }

    @Override
    public void lost(String name, Lease lease, String reason) {
        events.add("lost:" + name + ":" + lease.key());
    }
}
