package io.fencepost.lock.benchmarks.report;

import static io.fencepost.lock.benchmarks.clients.Library.FENCEPOST;
import static io.fencepost.lock.benchmarks.clients.Library.FENCEPOST_PERMITS;
import static io.fencepost.lock.benchmarks.clients.Library.FENCEPOST_SHARED;

import io.fencepost.lock.benchmarks.clients.Library;

/** One part of the report, written from the run's results into the Markdown that the parts share. */
interface Section {

    /** Appends this part; a part with nothing measured writes nothing. */
    void write();

    /** A library's name in a table row, Fencepost's (in any mode) in bold so that the eye finds it among the others. */
    static String label(Library library) {
        return library == FENCEPOST || library == FENCEPOST_SHARED || library == FENCEPOST_PERMITS
                ? "**" + library.label() + "**"
                : library.label();
    }
}
