package io.fencepost.lock.spring.transaction;

import io.fencepost.lock.Lease;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Iterator;
import java.util.List;
import org.springframework.transaction.TransactionExecution;

/**
 * The fenced calls running on each thread, innermost first, and the transaction each began: a call is bound to the
 * first new transaction that begins under its method's name while it is the innermost fenced call.
 */
final class FencedCalls {

    private static final ThreadLocal<Deque<Call>> CALLS = new ThreadLocal<>();

    private FencedCalls() {}

    /** One call of a fenced method, under its lease (or the leases of its set of keys). */
    static final class Call {

        final List<Lease> leases;

        final String method;

        /** The name the transaction interceptor gives the method's transaction. */
        final String transactionName;

        private TransactionExecution transaction;

        Call(List<Lease> leases, String method, String transactionName) {
            this.leases = List.copyOf(leases);
            this.method = method;
            this.transactionName = transactionName;
        }

        boolean bound() {
            return transaction != null;
        }
    }

    static void push(Call call) {
        Deque<Call> calls = CALLS.get();
        if (calls == null) {
            calls = new ArrayDeque<>();
            CALLS.set(calls);
        }
        calls.push(call);
    }

    static void pop(Call call) {
        Deque<Call> calls = CALLS.get();
        if (calls != null) {
            calls.remove(call);
            if (calls.isEmpty()) {
                CALLS.remove();
            }
        }
    }

    /** A new transaction began on this thread: the innermost fenced call takes it if it is its method's. */
    static void began(TransactionExecution transaction) {
        Deque<Call> calls = CALLS.get();
        if (calls == null || calls.isEmpty()) {
            return;
        }
        Call innermost = calls.peek();
        if (!innermost.bound() && innermost.transactionName.equals(transaction.getTransactionName())) {
            innermost.transaction = transaction;
        }
    }

    /** The fenced call whose transaction is {@code transaction}, or null. */
    static Call boundTo(TransactionExecution transaction) {
        Deque<Call> calls = CALLS.get();
        if (calls == null) {
            return null;
        }
        for (Call call : calls) {
            if (call.transaction == transaction) {
                return call;
            }
        }
        return null;
    }

    /** Whether enclosing calls on this thread bind their transactions to every grant of {@code call}. */
    static boolean coveredByEnclosing(Call call) {
        Deque<Call> calls = CALLS.get();
        if (calls == null) {
            return false;
        }
        for (Lease lease : call.leases) {
            if (!coveredByEnclosing(calls, call, lease)) {
                return false;
            }
        }
        return true;
    }

    private static boolean coveredByEnclosing(Deque<Call> calls, Call call, Lease lease) {
        for (Iterator<Call> it = calls.iterator(); it.hasNext(); ) {
            Call enclosing = it.next();
            if (enclosing == call || !enclosing.bound()) {
                continue;
            }
            for (Lease bound : enclosing.leases) {
                if (bound.key().equals(lease.key()) && bound.fencingToken() == lease.fencingToken()) {
                    return true;
                }
            }
        }
        return false;
    }
}
