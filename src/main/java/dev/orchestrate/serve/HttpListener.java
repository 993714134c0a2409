package dev.orchestrate.serve;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Accepts the dashboard's connections and hands each request to a {@link Handler}, one request per
 * connection. The JDK's {@code HttpServer} it replaces offered no say over which connections it
 * takes: 64 idle ones from one client held all of them. Here, at accept, a connection beyond
 * {@link Limits#perAddress} from its address, or beyond {@link Limits#total} in all, is closed at
 * once; an accepted one has a thread and {@link Limits#head} to send its whole request head (not
 * per read: a byte a second does not extend it), then {@link Limits#response} to be answered and
 * take the response. A timer closes the socket at each deadline, which ends any read or write.
 */
final class HttpListener implements AutoCloseable {
  /** Answers one request; the listener closes the connection after it. */
  interface Handler {
    void handle(Exchange exchange) throws IOException;
  }

  /**
   * @param head        time from accept to the end of the request head
   * @param response    time from then to the end of the response
   * @param perAddress  connections open at once from one remote address
   * @param total       connections open at once, one thread each
   * @param maxHeadBytes the longest request head read
   */
  record Limits(Duration head, Duration response, int perAddress, int total, int maxHeadBytes) {
    Limits {
      if (head.isNegative() || head.isZero() || response.isNegative() || response.isZero() || perAddress < 1
          || total < perAddress || maxHeadBytes < 1) {
        throw new IllegalArgumentException("impossible limits: " + head + ", " + response + ", " + perAddress + ", "
            + total + ", " + maxHeadBytes);
      }
    }
  }

  private static final Logger LOG = LoggerFactory.getLogger(HttpListener.class);
  private static final int BACKLOG = 50;
  /** After a response, what the client still sends is read and dropped for this long, so that closing does not reset the connection before the client has read the response. */
  private static final int LINGER_MILLIS = 1000;
  private static final int LINGER_BYTES = 64 * 1024;

  private final ServerSocket socket;
  private final Limits limits;
  private final ThreadPoolExecutor pool;
  private final ScheduledExecutorService deadlines;
  private final Map<InetAddress, Integer> perAddress = new HashMap<>(); // guarded by this
  private final Set<Socket> open = new HashSet<>(); // guarded by this
  private Thread acceptor;
  private volatile boolean closed;

  private HttpListener(ServerSocket socket, Limits limits) {
    this.socket = socket;
    this.limits = limits;
    this.pool = new ThreadPoolExecutor(limits.total(), limits.total(), 10, TimeUnit.SECONDS,
        new LinkedBlockingQueue<>(), r -> daemon(r, "serve"));
    pool.allowCoreThreadTimeOut(true);
    this.deadlines = Executors.newSingleThreadScheduledExecutor(r -> daemon(r, "serve-deadlines"));
  }

  private static Thread daemon(Runnable r, String name) {
    Thread t = new Thread(r, name);
    t.setDaemon(true);
    return t;
  }

  /** Binds {@code address} (port 0: any free one); nothing is accepted before {@link #serve}. */
  static HttpListener bind(InetSocketAddress address, Limits limits) throws IOException {
    ServerSocket socket = new ServerSocket();
    try {
      socket.bind(address, BACKLOG);
    } catch (IOException e) {
      socket.close();
      throw e;
    }
    return new HttpListener(socket, limits);
  }

  int port() {
    return socket.getLocalPort();
  }

  /** Starts accepting, each request to {@code handler}. */
  synchronized void serve(Handler handler) {
    if (acceptor != null) {
      throw new IllegalStateException("already serving");
    }
    acceptor = daemon(() -> accept(handler), "serve-accept");
    acceptor.start();
  }

  private void accept(Handler handler) {
    while (!closed) {
      Socket s;
      try {
        s = socket.accept();
      } catch (IOException e) {
        if (!closed) {
          LOG.warn("serve: accept failed: {}", e.toString());
          pause(); // out of file descriptors, say: do not spin
        }
        continue;
      }
      if (!admit(s)) {
        quietlyClose(s);
        continue;
      }
      try {
        pool.execute(() -> connection(s, handler));
      } catch (RejectedExecutionException stopping) {
        release(s);
        quietlyClose(s);
      }
    }
  }

  /** True when {@code s} is within both caps, and then counted. */
  private synchronized boolean admit(Socket s) {
    InetAddress from = s.getInetAddress();
    int theirs = perAddress.getOrDefault(from, 0);
    if (closed || theirs >= limits.perAddress() || open.size() >= limits.total()) {
      return false;
    }
    perAddress.put(from, theirs + 1);
    open.add(s);
    return true;
  }

  private synchronized void release(Socket s) {
    if (open.remove(s)) {
      perAddress.computeIfPresent(s.getInetAddress(), (a, n) -> n == 1 ? null : n - 1);
    }
  }

  private void connection(Socket s, Handler handler) {
    ScheduledFuture<?> deadline;
    try {
      deadline = deadlines.schedule(() -> quietlyClose(s), limits.head().toMillis(), TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException stopping) {
      release(s);
      quietlyClose(s);
      return;
    }
    try (s) {
      // No read waits past the head's deadline either (should the timer be late).
      s.setSoTimeout((int) Math.min(Integer.MAX_VALUE, limits.head().toMillis()));
      s.setTcpNoDelay(true);
      InputStream in = new BufferedInputStream(s.getInputStream());
      Exchange exchange;
      try {
        exchange = new Exchange(RequestHead.read(in, limits.maxHeadBytes()), s.getOutputStream(), in);
      } catch (RequestHead.Malformed e) {
        refuse(s, e);
        linger(s, in);
        return;
      }
      deadline.cancel(false);
      deadline = deadlines.schedule(() -> quietlyClose(s), limits.response().toMillis(), TimeUnit.MILLISECONDS);
      handler.handle(exchange);
      linger(s, in);
    } catch (IOException gone) {
      // the client went away, or a deadline closed its connection
    } catch (RuntimeException e) {
      if (!closed) { // closing stops the timer, which a connection still being answered may meet
        LOG.warn("serve: a connection failed: {}", e.toString());
      }
    } finally {
      deadline.cancel(false);
      release(s);
    }
  }

  private static void refuse(Socket s, RequestHead.Malformed e) throws IOException {
    byte[] body = (e.getMessage() + "\n").getBytes(StandardCharsets.UTF_8);
    String head = "HTTP/1.1 " + e.status + " " + Exchange.reason(e.status) + "\r\nContent-Type: text/plain; "
        + "charset=utf-8\r\nContent-Length: " + body.length + "\r\nConnection: close\r\n\r\n";
    s.getOutputStream().write(head.getBytes(StandardCharsets.ISO_8859_1));
    s.getOutputStream().write(body);
    s.getOutputStream().flush();
  }

  /**
   * Ends the response and reads what the client still sends (a body the handler did not want)
   * until it closes, for a second at most: closing with unread bytes would reset the connection,
   * and a reset can discard the response before the client reads it.
   */
  private static void linger(Socket s, InputStream in) throws IOException {
    s.shutdownOutput();
    s.setSoTimeout(LINGER_MILLIS);
    long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(LINGER_MILLIS);
    byte[] drop = new byte[4096];
    int total = 0;
    while (total < LINGER_BYTES && System.nanoTime() < until) {
      int n = in.read(drop);
      if (n < 0) {
        return;
      }
      total += n;
    }
  }

  private static void pause() {
    try {
      Thread.sleep(100);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void quietlyClose(Socket s) {
    try {
      s.close();
    } catch (IOException ignored) {
      // closing is all that was wanted
    }
  }

  @Override
  public void close() {
    closed = true;
    try {
      socket.close();
    } catch (IOException ignored) {
      // the acceptor ends either way
    }
    List<Socket> still;
    synchronized (this) {
      still = List.copyOf(open);
    }
    still.forEach(HttpListener::quietlyClose);
    pool.shutdownNow();
    deadlines.shutdownNow();
    try {
      pool.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
