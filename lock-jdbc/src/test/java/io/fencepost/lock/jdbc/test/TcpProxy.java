package io.fencepost.lock.jdbc.test;

import java.io.Closeable;
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
 * A TCP proxy on loopback between a client and PostgreSQL that a test can stall (bytes are held back, as in a
 * network partition) or cut (every connection is closed). No toxiproxy server is packaged here, so it lives in
 * the tests.
 *
 * <p>Subclasses add faults of their own: they can hold back one direction only ({@link #holdBack}) and act on every
 * chunk before it passes ({@link #awaitPassage}).
 */
public class TcpProxy implements AutoCloseable {

    private final ServerSocket server;

    private final ExecutorService threads;

    private final List<Socket> sockets = new CopyOnWriteArrayList<>();

    private final Object gate = new Object();

    private final AtomicInteger connections = new AtomicInteger();

    private final String targetHost;

    private volatile int targetPort;

    private volatile boolean requestsStalled;

    /** Set by {@link #refuse()}: a connection still being set up then closes itself. */
    private volatile boolean refusing;

    private volatile boolean responsesStalled;

    /** A proxy, listening on loopback, to {@code targetHost:targetPort}. */
    public TcpProxy(String targetHost, int targetPort) throws IOException {
        this("tcp-proxy", targetHost, targetPort);
    }

    /**
     * As {@link #TcpProxy(String, int)}, its threads named after {@code name} and the port it listens on. The accept
     * thread starts here and reads only the fields set above it.
     */
    @SuppressWarnings("this-escape")
    protected TcpProxy(String name, String targetHost, int targetPort) throws IOException {
        this.targetHost = targetHost;
        this.targetPort = targetPort;
        this.server = new ServerSocket(0, 200, InetAddress.getLoopbackAddress());
        this.threads = Executors.newCachedThreadPool(r -> {
            Thread thread = new Thread(r, name + "-" + server.getLocalPort());
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
        holdBack(true, true);
    }

    /** Ends every stall; held bytes are delivered. */
    public void resume() {
        synchronized (gate) {
            requestsStalled = false;
            responsesStalled = false;
            gate.notifyAll();
        }
    }

    /**
     * Stops listening and closes every open connection, for good: new connections are refused, as by a host whose
     * database is down.
     */
    public void refuse() {
        refusing = true;
        closeQuietly(server);
        cut();
    }

    /** Closes every open connection through the proxy; new ones are still accepted. */
    public void cut() {
        for (Socket socket : sockets) {
            closeQuietly(socket);
        }
        sockets.clear();
    }

    /**
     * Holds back, until {@link #resume()}, the bytes clients send ({@code requests}) and those the server sends
     * ({@code responses}); a direction passed {@code false} keeps whatever it had.
     */
    protected final void holdBack(boolean requests, boolean responses) {
        if (requests) {
            requestsStalled = true;
        }
        if (responses) {
            responsesStalled = true;
        }
    }

    /** Returns when a chunk read in this direction ({@code request}: from the client) may be passed on. */
    protected void awaitPassage(boolean request) throws InterruptedException {
        synchronized (gate) {
            while (request ? requestsStalled : responsesStalled) {
                gate.wait();
            }
        }
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket client = server.accept();
                connections.incrementAndGet();
                threads.execute(() -> connect(client));
            } catch (IOException e) {
                // closed, which ends the loop; otherwise keep accepting
            }
        }
    }

    // Off the accepting thread, so that a slow or refused upstream does not hold up other clients.
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
        // Checked after the sockets are listed: either refuse() reads them in its cut, or this sees it refusing.
        if (refusing) {
            sockets.remove(client);
            sockets.remove(upstream);
            closeQuietly(client);
            closeQuietly(upstream);
            return;
        }
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
            // connection cut or closed: close the other side too
        } finally {
            closeQuietly(from);
            closeQuietly(to);
            sockets.remove(from);
            sockets.remove(to);
        }
    }

    private static void closeQuietly(Closeable socket) {
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
}
