package io.fencepost.lock.benchmarks;

import io.fencepost.lock.benchmarks.clients.Library;
import java.util.EnumMap;
import java.util.List;

/** The measurements of one scenario per library, in the order the libraries are declared. */
public final class Series<R> extends KeyedSeries<Library, R> {

    public Series() {
        super(new EnumMap<>(Library.class));
    }

    public List<Library> libraries() {
        return keys();
    }
}
