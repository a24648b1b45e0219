package io.fencepost.sample.lab;

import io.fencepost.lock.Lease;
import io.fencepost.lock.LeaseInfo;
import io.fencepost.lock.LockOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;

/**
 * Step 2, grant to exactly one: four clients, on threads of their own, ask for one key at the same instant (released
 * together from a gate). Asking once, one wins and the store tells the others "busy"; asking with a wait, they are
 * granted one after another, each named by the store while it holds the key.
 */
final class RaceStep implements LabStep {

    static final String ID = "race";

    private static final int RACERS = 4;

    @Override
    public String id() {
        return ID;
    }

    @Override
    public void run(StepContext context) throws InterruptedException {
        String key = context.key(ID);
        List<StepContext.Client> racers = new ArrayList<>();
        for (int i = 1; i <= RACERS; i++) {
            racers.add(context.client("racer-" + i));
        }
        ExecutorService threads = Executors.newFixedThreadPool(RACERS);
        try {
            context.event(ID, RACERS + " clients ask for '" + key + "' at the same instant, once each");
            List<Attempt> once = race(threads, racers, attempt -> attempt.ask(key, context.options(Duration.ZERO)));
            List<Attempt> winners = once.stream().filter(Attempt::granted).toList();
            Optional<LeaseInfo> store = context.inspect(key);
            boolean one = winners.size() == 1
                    && store.isPresent()
                    && store.get().fencingToken() == winners.get(0).token
                    && store.get()
                            .holder()
                            .equals(context.holderName(winners.get(0).client.name()));
            String firstRound = "Asked once at the same instant: "
                    + describe(winners) + (winners.size() == 1 ? " won" : " were granted") + "; "
                    + once.stream()
                            .filter(attempt -> !attempt.granted())
                            .map(attempt -> attempt.client.name())
                            .collect(Collectors.joining(", "))
                    + " told busy; the store names "
                    + store.map(info -> info.holder() + " with token " + info.fencingToken())
                            .orElse("nobody");
            context.event(ID, firstRound);
            winners.forEach(Attempt::release);

            context.event(ID, RACERS + " clients ask again at the same instant, each willing to wait");
            Duration wait = context.leaseTime().multipliedBy(4);
            List<Attempt> waited = race(threads, racers, attempt -> attempt.askAndHold(key, context, wait));
            List<Attempt> order = waited.stream()
                    .filter(Attempt::granted)
                    .sorted((a, b) -> Long.compare(a.token, b.token))
                    .toList();
            boolean inTurn = order.size() == RACERS && waited.stream().allMatch(attempt -> attempt.namedByStore);
            String secondRound = "Asked with a wait: granted one after another, "
                    + order.stream()
                            .map(attempt -> attempt.client.name() + " (token " + attempt.token + ")")
                            .collect(Collectors.joining(", "))
                    + (inTurn
                            ? "; while each held the key, the store named it and nobody else"
                            : "; NOT every client was granted in turn and named by the store");
            context.result(ID, one && inTurn, firstRound + ". " + secondRound + ".");
        } finally {
            threads.shutdownNow();
        }
    }

    private static String describe(List<Attempt> attempts) {
        return attempts.isEmpty()
                ? "nobody"
                : attempts.stream()
                        .map(attempt -> attempt.client.name() + " (token " + attempt.token + ")")
                        .collect(Collectors.joining(", "));
    }

    /** Releases every racer at once from a gate and waits for all their answers. */
    private static List<Attempt> race(ExecutorService threads, List<StepContext.Client> racers, AttemptAction action)
            throws InterruptedException {
        CountDownLatch ready = new CountDownLatch(racers.size());
        CountDownLatch gate = new CountDownLatch(1);
        List<Future<Attempt>> answers = new ArrayList<>();
        for (StepContext.Client racer : racers) {
            answers.add(threads.submit(() -> {
                Attempt attempt = new Attempt(racer);
                ready.countDown();
                gate.await();
                action.run(attempt);
                return attempt;
            }));
        }
        if (!ready.await(10, TimeUnit.SECONDS)) {
            throw new IllegalStateException("the racers' threads did not start within 10 s");
        }
        gate.countDown();
        List<Attempt> attempts = new ArrayList<>();
        for (Future<Attempt> answer : answers) {
            try {
                attempts.add(answer.get(1, TimeUnit.MINUTES));
            } catch (ExecutionException | TimeoutException e) {
                throw new IllegalStateException("a racer failed: " + e, e);
            }
        }
        return attempts;
    }

    @FunctionalInterface
    private interface AttemptAction {
        void run(Attempt attempt) throws InterruptedException;
    }

    /** One racer's attempt and what it learned. */
    private static final class Attempt {

        private final StepContext.Client client;

        private Lease lease;

        private long token;

        private boolean namedByStore;

        Attempt(StepContext.Client client) {
            this.client = client;
        }

        boolean granted() {
            return token > 0;
        }

        void ask(String key, LockOptions options) {
            client.locks().tryAcquire(key, options).ifPresent(granted -> {
                lease = granted;
                token = granted.fencingToken();
            });
        }

        /** Waits for the key, checks that the store names this client, works a moment and releases. */
        void askAndHold(String key, StepContext context, Duration wait) throws InterruptedException {
            ask(key, context.options(wait));
            if (lease == null) {
                return;
            }
            try {
                Optional<LeaseInfo> store = context.inspect(key);
                namedByStore = store.isPresent()
                        && store.get().fencingToken() == token
                        && store.get().holder().equals(context.holderName(client.name()));
                context.event(ID, client.name() + " is granted token " + token + " and works a moment");
                TimeUnit.MILLISECONDS.sleep(100);
            } finally {
                release();
            }
        }

        void release() {
            if (lease != null) {
                lease.release();
            }
        }
    }
}
