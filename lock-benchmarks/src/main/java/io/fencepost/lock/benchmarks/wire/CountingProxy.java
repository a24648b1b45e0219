package io.fencepost.lock.benchmarks.wire;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A loopback TCP proxy in front of Redis that counts, from the bytes on the wire, the commands a client sends and
 * its round trips (a send after the server last spoke; the harness uses the client one command at a time). It adds
 * latency, so it is only used to count, never to time. (PostgreSQL traffic is counted inside the JDBC driver's
 * socket instead, see {@link CountingSocketFactory}.)
 */
public final class CountingProxy implements AutoCloseable {

    private final InetSocketAddress target;

    private final ServerSocket server;

    private final List<Socket> sockets = new CopyOnWriteArrayList<>();

    private final WireCounter counter = new WireCounter();

    private final AtomicLong connections = new AtomicLong();

    private volatile boolean open = true;

    public CountingProxy(String targetHost, int targetPort) throws IOException {
        this.target = new InetSocketAddress(targetHost, targetPort);
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(this::acceptLoop, "counting-proxy-accept");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    public int port() {
        return server.getLocalPort();
    }

    public String host() {
        return server.getInetAddress().getHostAddress();
    }

    public WireCounter counter() {
        return counter;
    }

    private void acceptLoop() {
        while (open) {
            try {
                Socket client = server.accept();
                Socket upstream = new Socket();
                upstream.connect(target, 5_000);
                client.setTcpNoDelay(true);
                upstream.setTcpNoDelay(true);
                sockets.add(client);
                sockets.add(upstream);
                AtomicInteger lastSender = new AtomicInteger();
                RespCommandCounter commands = new RespCommandCounter(counter);
                long id = connections.incrementAndGet();
                start("counting-proxy-c2s-" + id, () -> pump(client, upstream, lastSender, 1, commands));
                start("counting-proxy-s2c-" + id, () -> pump(upstream, client, lastSender, 2, null));
            } catch (IOException e) {
                if (open) {
                    System.err.println("counting proxy: " + e);
                }
            }
        }
    }

    private void pump(Socket from, Socket to, AtomicInteger lastSender, int me, RespCommandCounter commands) {
        byte[] buffer = new byte[64 * 1024];
        try (InputStream in = from.getInputStream();
                OutputStream out = to.getOutputStream()) {
            int n;
            while ((n = in.read(buffer)) > 0) {
                if (lastSender.getAndSet(me) != me && commands != null) {
                    counter.roundTrip();
                }
                if (commands != null) {
                    commands.feed(buffer, n);
                }
                out.write(buffer, 0, n);
                out.flush();
            }
        } catch (IOException e) {
            // the other side closed: close ours too
        } finally {
            closeQuietly(from);
            closeQuietly(to);
        }
    }

    private static void start(String name, Runnable work) {
        Thread thread = new Thread(work, name);
        thread.setDaemon(true);
        thread.start();
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException e) {
            // closing anyway
        }
    }

    @Override
    public void close() throws IOException {
        open = false;
        server.close();
        for (Socket socket : sockets) {
            closeQuietly(socket);
        }
    }
}
