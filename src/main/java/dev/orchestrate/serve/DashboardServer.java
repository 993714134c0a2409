package dev.orchestrate.serve;

import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.orchestrate.state.DashboardQueries;
import dev.orchestrate.state.StateBackend;
import dev.orchestrate.state.StateStore;
import dev.orchestrate.state.StoreException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code orchestrate serve}: the JDK's own HTTP server (no dependency, nothing loaded by the other
 * commands). It changes nothing: each request opens the state read-only ({@link DashboardQueries}),
 * only GET and HEAD are answered, and every response carries a strict Content-Security-Policy. A
 * request naming another host is refused first ({@link AllowedHosts}); bound beyond loopback, every
 * request must carry the access token.
 *
 * <p>The JDK's server reads a request's head on the thread that will handle it, so a client that
 * sends its head slowly holds a thread until {@link #REQUEST_HEAD_SECONDS}. The pool therefore has
 * a thread for each of at most {@link #MAX_CONNECTIONS} connections (the server closes any beyond),
 * and only {@link #RENDERERS} of them open the state and render at once.
 */
public final class DashboardServer implements AutoCloseable {
  static final String CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
      + "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";
  /** Pages rendered at once (each opens the state): the old fixed pool's size. */
  static final int RENDERERS = 4;
  /** Connections open at once; the JDK's server closes a new one beyond this at once. */
  static final int MAX_CONNECTIONS = 64;
  /** Time a client has to send its request's head before its connection is closed. */
  static final int REQUEST_HEAD_SECONDS = 10;
  static final int MAX_URI_CHARS = 4096;
  private static final Logger LOG = LoggerFactory.getLogger(DashboardServer.class);

  private final HttpServer server;
  private final ExecutorService pool;
  private final StateBackend backend;
  private final Pages pages;
  private final ItemPages itemPages;
  private final AccessToken token;
  private final AllowedHosts hosts;
  private final Semaphore rendering = new Semaphore(RENDERERS, true);

  private DashboardServer(HttpServer server, ExecutorService pool, StateBackend backend, Clock clock,
      AccessToken token, AllowedHosts hosts) {
    this.server = server;
    this.pool = pool;
    this.backend = backend;
    this.pages = new Pages(backend.directory(), clock);
    this.itemPages = new ItemPages(backend.directory());
    this.token = token;
    this.hosts = hosts;
  }

  /**
   * Binds and starts serving.
   *
   * @param token null to serve without one (only sensible on loopback; the command enforces that)
   */
  public static DashboardServer start(StateBackend backend, InetSocketAddress address, String token, Clock clock)
      throws IOException {
    // Bounds read once per JVM by the JDK's server (a -D in ORCHESTRATE_JAVA_OPTS wins): the time to
    // send a request's head, to take the response, and the connections open at once.
    defaultProperty("sun.net.httpserver.maxReqTime", REQUEST_HEAD_SECONDS);
    defaultProperty("sun.net.httpserver.maxRspTime", 60);
    defaultProperty("jdk.httpserver.maxConnections", MAX_CONNECTIONS);
    HttpServer server = HttpServer.create(address, 32);
    // A thread per connection: the connection cap bounds them; idle ones end.
    ThreadPoolExecutor pool = new ThreadPoolExecutor(MAX_CONNECTIONS, MAX_CONNECTIONS, 10, TimeUnit.SECONDS,
        new LinkedBlockingQueue<>(), r -> {
          Thread t = new Thread(r, "serve");
          t.setDaemon(true);
          return t;
        });
    pool.allowCoreThreadTimeOut(true);
    DashboardServer dashboard = new DashboardServer(server, pool, backend, clock,
        token == null ? null : new AccessToken(token), AllowedHosts.of(address, server.getAddress().getPort()));
    server.createContext("/", dashboard::handle);
    server.setExecutor(pool);
    server.start();
    return dashboard;
  }

  private static void defaultProperty(String name, int value) {
    System.setProperty(name, System.getProperty(name, Integer.toString(value)));
  }

  /**
   * {@code orchestrate serve} once its flags are checked: starts, says where on {@code out} (and
   * the generated token, once, on {@code err}), and serves until the JVM is stopped. Kept here
   * rather than in the command so that the command's class names nothing of this package the
   * verifier would load at start-up.
   *
   * @param token  null: none asked for on loopback, one generated on any other address
   * @param onStop routes the operator's stop (Ctrl-C, SIGTERM, SIGHUP) to the action it is given
   *               until the registration it returns is closed, so that serve ends as {@code run}
   *               does, with 130, rather than by the signal's default (143 for SIGTERM)
   * @return 130, the interrupted exit code, when stopped
   * @throws IOException when the address cannot be bound
   */
  public static int serveUntilStopped(StateBackend backend, InetSocketAddress address, String token, PrintWriter out,
      PrintWriter err, java.util.function.Function<Runnable, AutoCloseable> onStop)
      throws IOException, InterruptedException {
    String access = token;
    if (access == null && !address.getAddress().isLoopbackAddress()) {
      access = AccessToken.generate(new SecureRandom()).value();
      err.println("orchestrate: access token for this dashboard (shown once): " + access);
      err.flush();
    }
    DashboardServer server = start(backend, address, access, Clock.systemUTC());
    CountDownLatch stopped = new CountDownLatch(1);
    AutoCloseable signals = onStop.apply(stopped::countDown);
    String host = address.getAddress().isAnyLocalAddress() ? "127.0.0.1" : address.getAddress().getHostAddress();
    if (host.contains(":")) {
      host = "[" + host + "]";
    }
    out.println("Serving " + backend.directory().root().toAbsolutePath() + " read-only at http://" + host + ":"
        + server.port() + "/"
        + (access == null ? "" : " (token required)"));
    out.flush();
    try {
      stopped.await();
    } finally {
      server.close();
      try {
        signals.close();
      } catch (Exception e) {
        // putting the previous handlers back cannot fail in a way that matters once serving ended
      }
    }
    return 130;
  }

  public int port() {
    return server.getAddress().getPort();
  }

  private void handle(HttpExchange ex) throws IOException {
    try (ex) {
      Headers h = ex.getResponseHeaders();
      h.set("Content-Security-Policy", CSP);
      h.set("X-Content-Type-Options", "nosniff");
      h.set("Referrer-Policy", "no-referrer");
      h.set("X-Frame-Options", "DENY");
      h.set("Cache-Control", "no-store");
      if (!rightHost(ex)) {
        return;
      }
      String method = ex.getRequestMethod();
      boolean head = method.equals("HEAD");
      if (!method.equals("GET") && !head) {
        h.set("Allow", "GET, HEAD");
        send(ex, 405, "text/plain; charset=utf-8", "method not allowed: the dashboard is read-only\n", false);
        return;
      }
      URI uri = ex.getRequestURI();
      if (uri.getRawPath() == null || uri.toString().length() > MAX_URI_CHARS) {
        send(ex, 414, "text/plain; charset=utf-8", "request URI too long\n", head);
        return;
      }
      Query query = Query.parse(uri.getRawQuery());
      if (token != null && !authorised(ex, query, head)) {
        return;
      }
      route(ex, uri.getPath(), query, head);
    } catch (RuntimeException e) {
      LOG.warn("serve: {} {} failed: {}", ex.getRequestMethod(), ex.getRequestURI().getPath(), e.toString());
      try {
        send(ex, 500, "text/plain; charset=utf-8", "the page could not be rendered: " + e.getMessage() + "\n", false);
      } catch (IOException | RuntimeException ignored) {
        // the response had started; the connection is closed with the exchange
      }
    }
  }

  /**
   * True when the request names this server in its one {@code Host}; otherwise 421 (or 400 for an
   * HTTP/1.1 request without one, or with two) is sent. A request without {@code Host} in HTTP/1.0
   * is answered: a browser always sends one, so no page of another site can make such a request.
   */
  private boolean rightHost(HttpExchange ex) throws IOException {
    List<String> host = ex.getRequestHeaders().get("Host");
    if (host == null && ex.getProtocol().equalsIgnoreCase("HTTP/1.0")) {
      return true;
    }
    if (host == null || host.size() != 1) {
      send(ex, 400, "text/plain; charset=utf-8", "bad request: exactly one Host header is needed\n", false);
      return false;
    }
    if (hosts.allows(host.get(0))) {
      return true;
    }
    send(ex, 421, "text/plain; charset=utf-8",
        "misdirected request: this dashboard answers only to " + hosts.describe() + "\n", false);
    return false;
  }

  /** True when the request may go on; otherwise the response (401, or a redirect setting the cookie) is sent. */
  private boolean authorised(HttpExchange ex, Query query, boolean head) throws IOException {
    String inQuery = query.params().get("token");
    if (inQuery != null && token.matches(inQuery)) {
      // Trade the token in the address for a cookie, and drop it from the address bar and history.
      ex.getResponseHeaders().add("Set-Cookie", AccessToken.COOKIE + "=" + token.value()
          + "; Path=/; HttpOnly; SameSite=Strict");
      ex.getResponseHeaders().set("Location", withoutToken(ex.getRequestURI()));
      send(ex, 303, "text/plain; charset=utf-8", "", true);
      return false;
    }
    Headers in = ex.getRequestHeaders();
    if (token.matches(AccessToken.presented(in.getFirst("Authorization"), in.get("Cookie")))) {
      return true;
    }
    ex.getResponseHeaders().set("WWW-Authenticate", "Bearer realm=\"orchestrate\"");
    send(ex, 401, "text/plain; charset=utf-8",
        "this dashboard needs its access token: open it with ?token=TOKEN once, or send Authorization: Bearer TOKEN\n",
        head);
    return false;
  }

  private static String withoutToken(URI uri) {
    String rest = Query.without(uri.getRawQuery(), "token");
    // Only a path of this server: "//host/..." would send the browser elsewhere.
    String path = uri.getRawPath().startsWith("/") && !uri.getRawPath().startsWith("//") ? uri.getRawPath() : "/";
    return path + rest;
  }

  private void route(HttpExchange ex, String path, Query query, boolean head) throws IOException {
    if (path.equals("/static/dashboard.css")) {
      resource(ex, "dashboard.css", "text/css; charset=utf-8", head);
      return;
    }
    if (path.equals("/static/dashboard.js")) {
      resource(ex, "dashboard.js", "text/javascript; charset=utf-8", head);
      return;
    }
    if (!path.equals("/") && !path.equals("/items") && !path.equals("/item") && !path.equals("/jobs")
        && !path.equals("/growth") && !path.equals("/memory") && !path.equals("/log")) {
      page(ex, Pages.notFound(), head);
      return;
    }
    if (!backend.exists()) {
      page(ex, pages.noState(), head);
      return;
    }
    long started = System.nanoTime();
    Pages.Rendered rendered;
    try {
      rendering.acquire();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return; // the server is stopping
    }
    try (StateStore store = backend.open(StateStore.Mode.READ_ONLY)) {
      DashboardQueries db = store.dashboard();
      if (!db.readable()) {
        rendered = pages.oldSchema(store.schemaVersion());
      } else {
        rendered = switch (path) {
          case "/items" -> pages.items(db, query);
          case "/item" -> itemPages.item(db, query);
          case "/jobs" -> pages.jobs(db, query);
          case "/log" -> itemPages.log(db, query);
          case "/growth" -> pages.growth(db);
          case "/memory" -> pages.memory(db, query);
          default -> pages.overview(db);
        };
      }
    } catch (StoreException e) {
      rendered = new Pages.Rendered(503, PageParts.layout("Unavailable", "",
          "<h1>Unavailable</h1><p>" + Html.esc(e.getMessage()) + "</p>"));
    } finally {
      rendering.release();
    }
    // The server's own time for the page (database and rendering), for the benchmark and the browser's tools.
    ex.getResponseHeaders().set("Server-Timing",
        String.format(java.util.Locale.ROOT, "render;dur=%.1f", (System.nanoTime() - started) / 1e6));
    page(ex, rendered, head);
  }

  private static void page(HttpExchange ex, Pages.Rendered rendered, boolean head) throws IOException {
    send(ex, rendered.status(), "text/html; charset=utf-8", rendered.html(), head);
  }

  private static void resource(HttpExchange ex, String name, String type, boolean head) throws IOException {
    try (InputStream in = DashboardServer.class.getResourceAsStream("/serve/" + name)) {
      if (in == null) {
        page(ex, Pages.notFound(), head);
        return;
      }
      byte[] body = in.readAllBytes();
      ex.getResponseHeaders().set("Content-Type", type);
      ex.sendResponseHeaders(200, head ? -1 : body.length);
      if (!head) {
        ex.getResponseBody().write(body);
      }
    }
  }

  private static void send(HttpExchange ex, int status, String type, String body, boolean head) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().set("Content-Type", type);
    ex.sendResponseHeaders(status, head || bytes.length == 0 ? -1 : bytes.length);
    if (!head && bytes.length > 0) {
      try (OutputStream out = ex.getResponseBody()) {
        out.write(bytes);
      }
    }
  }

  @Override
  public void close() {
    server.stop(0);
    pool.shutdownNow();
    try {
      pool.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
