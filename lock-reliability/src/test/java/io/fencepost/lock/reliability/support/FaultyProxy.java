package io.fencepost.lock.reliability.support;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A loopback TCP proxy in front of PostgreSQL that a test can slow down (latency per chunk), stall in one or both
 * directions, cut, and point at another server. Stalling only the responses models the nastiest network failure
 * for a lock: the statement runs and commits, the client never hears of it.
 */
public final class FaultyProxy implements AutoCloseable {

    private final ServerSocket server;

    private final ExecutorService threads;

    private final List<Socket> sockets = new CopyOnWriteArrayList<>();

    private final Object gate = new Object();

    private final AtomicInteger connections = new AtomicInteger();

    private final String targetHost;

    private volatile int targetPort;

    private volatile boolean requestsStalled;

    private volatile boolean responsesStalled;

    private volatile long latencyMillis;

    /** A proxy to {@code targetPort} on loopback. */
    public FaultyProxy(int targetPort) throws IOException {
        this("127.0.0.1", targetPort);
    }

    /** A proxy, listening on loopback, to {@code targetHost:targetPort}. */
    public FaultyProxy(String targetHost, int targetPort) throws IOException {
        this.targetHost = targetHost;
        this.targetPort = targetPort;
        this.server = new ServerSocket(0, 200, InetAddress.getLoopbackAddress());
        this.threads = Executors.newCachedThreadPool(r -> {
            Thread thread = new Thread(r, "faulty-proxy-" + server.getLocalPort());
            thread.setDaemon(true);
            return thread;
        });
        threads.execute(this::accept);
    }

    /** The loopback port clients connect to. */
    public int port() {
        return server.getLocalPort();
    }

    /** How many client connections the proxy accepted so far. */
    public int connectionsAccepted() {
        return connections.get();
    }

    /** New connections go to {@code port} from now on; open ones stay where they are (cut them to move them). */
    public void retarget(int port) {
        this.targetPort = port;
    }

    /** Holds back every byte in both directions until {@link #resume()}, as in a network partition. */
    public void stall() {
        requestsStalled = true;
        responsesStalled = true;
    }

    /** Lets requests through but holds back every response: statements run, their results never arrive. */
    public void stallResponses() {
        responsesStalled = true;
    }

    /** Delays every chunk of bytes, in both directions, by {@code millis}. */
    public void latency(long millis) {
        this.latencyMillis = millis;
    }

    /** Ends stalls and latency; held bytes are delivered. */
    public void resume() {
        synchronized (gate) {
            requestsStalled = false;
            responsesStalled = false;
            latencyMillis = 0;
            gate.notifyAll();
        }
    }

    /** Closes every open connection through the proxy; new ones are still accepted. */
    public void cut() {
        for (Socket socket : sockets) {
            closeQuietly(socket);
        }
        sockets.clear();
    }

    private void accept() {
        while (!server.isClosed()) {
            Socket client;
            try {
                client = server.accept();
            } catch (IOException e) {
                return;
            }
            connections.incrementAndGet();
            threads.execute(() -> connect(client));
        }
    }

    private void connect(Socket client) {
        Socket upstream = new Socket();
        try {
            upstream.connect(new InetSocketAddress(targetHost, targetPort), 5_000);
        } catch (IOException e) {
            closeQuietly(client);
            closeQuietly(upstream);
            return;
        }
        sockets.add(client);
        sockets.add(upstream);
        threads.execute(() -> pump(client, upstream, true));
        threads.execute(() -> pump(upstream, client, false));
    }

    private void pump(Socket from, Socket to, boolean request) {
        byte[] buffer = new byte[16 * 1024];
        try (InputStream in = from.getInputStream();
                OutputStream out = to.getOutputStream()) {
            int n;
            while ((n = in.read(buffer)) >= 0) {
                awaitPassage(request);
                out.write(buffer, 0, n);
                out.flush();
            }
        } catch (IOException | InterruptedException e) {
            // cut or closed: close the other side too
        } finally {
            closeQuietly(from);
            closeQuietly(to);
            sockets.remove(from);
            sockets.remove(to);
        }
    }

    private void awaitPassage(boolean request) throws InterruptedException {
        long delay = latencyMillis;
        if (delay > 0) {
            Thread.sleep(delay);
        }
        synchronized (gate) {
            while (request ? requestsStalled : responsesStalled) {
                gate.wait();
            }
        }
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // already closed
        }
    }

    @Override
    public void close() {
        resume();
        closeQuietly(server);
        cut();
        threads.shutdownNow();
    }

    private static void closeQuietly(ServerSocket socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // already closed
        }
    }
}
