package dev.orchestrate.serve;

import dev.orchestrate.app.Reviewing;
import dev.orchestrate.state.DashboardQueries;
import dev.orchestrate.state.StateBackend;
import dev.orchestrate.state.StateStore;
import dev.orchestrate.state.StoreException;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code orchestrate serve}: a small HTTP/1.1 server of its own ({@link HttpListener}: no
 * dependency, nothing loaded by the other commands). It changes nothing: each request opens the
 * state read-only ({@link DashboardQueries}), only GET and HEAD are answered, and every response
 * carries a strict Content-Security-Policy. A request naming another host is refused first
 * ({@link AllowedHosts}); bound beyond loopback, every request must carry the access token. Started
 * with actions ({@code serve --actions}), it also takes the POST of a decision's form, with this
 * server's secret ({@link CsrfToken}) and from its own origin, and hands it to the use case the
 * command of its name calls ({@link ReviewActions}).
 *
 * <p>A connection has a thread from accept until it is answered, and {@link #REQUEST_HEAD_SECONDS}
 * to send its whole request head. At most {@link #MAX_CONNECTIONS} are open at once and
 * {@link #MAX_PER_ADDRESS} from one address (the listener closes any beyond at once), so one client
 * cannot take every thread; only {@link #RENDERERS} of them open the state and render at once.
 */
public final class DashboardServer implements AutoCloseable {
  static final String CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
      + "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";
  /** Pages rendered at once (each opens the state): the old fixed pool's size. */
  static final int RENDERERS = 4;
  /** Connections open at once; a new one beyond this is closed at once. */
  static final int MAX_CONNECTIONS = 64;
  /** Connections open at once from one remote address (loopback included); a new one beyond is closed at once. */
  static final int MAX_PER_ADDRESS = 8;
  /** Time from accept a client has to send its whole request head before its connection is closed. */
  static final int REQUEST_HEAD_SECONDS = 5;
  /** Time from then to answer the request and for the client to take the response. */
  static final int RESPONSE_SECONDS = 60;
  static final int MAX_URI_CHARS = 4096;
  private static final String ITEMS_PREFIX = "/items/";
  private static final String ACTIONS_PREFIX = "/actions/";
  /** The longest request head read: a URI of {@link #MAX_URI_CHARS} and room for cookies. */
  static final int MAX_HEAD_BYTES = 16 * 1024;
  static final HttpListener.Limits LIMITS = new HttpListener.Limits(Duration.ofSeconds(REQUEST_HEAD_SECONDS),
      Duration.ofSeconds(RESPONSE_SECONDS), MAX_PER_ADDRESS, MAX_CONNECTIONS, MAX_HEAD_BYTES);
  private static final Logger LOG = LoggerFactory.getLogger(DashboardServer.class);

  private final HttpListener listener;
  private final StateBackend backend;
  private final Pages pages;
  private final ItemPages itemPages;
  private final AccessToken token;
  private final AllowedHosts hosts;
  private final Semaphore rendering = new Semaphore(RENDERERS, true);
  private final ReviewPages reviewPages;
  /** Null unless started with actions ({@code serve --actions}). */
  private final Decisions decisions;

  private DashboardServer(HttpListener listener, StateBackend backend, Clock clock, AccessToken token,
      AllowedHosts hosts, ReviewActions actions) {
    this.listener = listener;
    this.backend = backend;
    this.pages = new Pages(backend.directory(), clock);
    this.token = token;
    this.hosts = hosts;
    this.decisions = actions == null ? null : new Decisions(actions, new SecureRandom());
    this.reviewPages = new ReviewPages(clock, decisions);
    this.itemPages = new ItemPages(backend.directory(), reviewPages);
  }

  /**
   * Binds and starts serving.
   *
   * @param token null to serve without one (only sensible on loopback; the command enforces that)
   */
  public static DashboardServer start(StateBackend backend, InetSocketAddress address, String token, Clock clock)
      throws IOException {
    return start(backend, address, token, clock, null);
  }

  /**
   * Binds and starts serving, with the actions when {@code project} is given ({@code serve --actions}).
   *
   * @param project the project's config and checkout as {@code approve} finds them, asked at each
   *                action; null: read-only
   * @throws IllegalArgumentException for actions without a token (on loopback too: any local
   *                                  process, an agent's included, could otherwise take them)
   */
  public static DashboardServer start(StateBackend backend, InetSocketAddress address, String token, Clock clock,
      Supplier<Reviewing.Project> project) throws IOException {
    if (project != null && token == null) {
      // Loopback too: every local process, an agent's among them, reaches 127.0.0.1, and the page that
      // carries the forms' secret is one GET away.
      throw new IllegalArgumentException("actions need an access token");
    }
    HttpListener listener = HttpListener.bind(address, LIMITS);
    try {
      DashboardServer dashboard = new DashboardServer(listener, backend, clock,
          token == null ? null : new AccessToken(token), AllowedHosts.of(address, listener.port()),
          project == null ? null : new ReviewActions(backend, project, clock));
      listener.serve(dashboard::handle);
      return dashboard;
    } catch (RuntimeException e) {
      listener.close();
      throw e;
    }
  }

  /**
   * {@code orchestrate serve} once its flags are checked: starts, says where on {@code out} (and
   * the generated token, once, on {@code err}), and serves until the JVM is stopped. Kept here
   * rather than in the command so that the command's class names nothing of this package the
   * verifier would load at start-up.
   *
   * @param token  null: none asked for on loopback without actions, one generated otherwise
   * @param project null: read-only; else the project the actions decide in ({@code serve --actions})
   * @param onStop routes the operator's stop (Ctrl-C, SIGTERM, SIGHUP) to the action it is given
   *               until the registration it returns is closed, so that serve ends as {@code run}
   *               does, with 130, rather than by the signal's default (143 for SIGTERM)
   * @return 130, the interrupted exit code, when stopped
   * @throws IOException when the address cannot be bound
   */
  public static int serveUntilStopped(StateBackend backend, InetSocketAddress address, String token,
      Supplier<Reviewing.Project> project, PrintWriter out, PrintWriter err,
      java.util.function.Function<Runnable, AutoCloseable> onStop)
      throws IOException, InterruptedException {
    String access = token;
    if (access == null && (project != null || !address.getAddress().isLoopbackAddress())) {
      // With actions on loopback too: an agent on this machine could otherwise approve its own work.
      access = AccessToken.generate(new SecureRandom()).value();
      err.println("orchestrate: access token for this dashboard (shown once): " + access
          + (project == null ? "" : " (the actions need it on loopback too: any local process reaches the address; "
              + "open the address below with ?token=" + access + ")"));
      err.flush();
    }
    DashboardServer server = start(backend, address, access, Clock.systemUTC(), project);
    CountDownLatch stopped = new CountDownLatch(1);
    AutoCloseable signals = onStop.apply(stopped::countDown);
    String host = address.getAddress().isAnyLocalAddress() ? "127.0.0.1" : address.getAddress().getHostAddress();
    if (host.contains(":")) {
      host = "[" + host + "]";
    }
    out.println("Serving " + backend.directory().root().toAbsolutePath()
        + (project == null ? " read-only" : " with actions (approve, reject, unblock)") + " at http://" + host + ":"
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
    return listener.port();
  }

  private void handle(Exchange ex) throws IOException {
    try {
      ex.set("Content-Security-Policy", CSP);
      ex.set("X-Content-Type-Options", "nosniff");
      // With actions, same-origin: a browser then sends the page's own Origin with a form, which is checked.
      ex.set("Referrer-Policy", decisions == null ? "no-referrer" : "same-origin");
      ex.set("X-Frame-Options", "DENY");
      ex.set("Cache-Control", "no-store");
      if (!rightHost(ex)) {
        return;
      }
      String method = ex.method();
      boolean head = method.equals("HEAD");
      boolean post = method.equals("POST") && decisions != null;
      if (!method.equals("GET") && !head && !post) {
        ex.set("Allow", decisions == null ? "GET, HEAD" : "GET, HEAD, POST");
        send(ex, 405, "text/plain; charset=utf-8", decisions == null ? "method not allowed: the dashboard is read-only "
            + "(serve --actions offers approve, reject and unblock)\n" : "method not allowed\n", false);
        return;
      }
      URI uri = ex.uri();
      if (uri.getRawPath() == null || uri.toString().length() > MAX_URI_CHARS) {
        send(ex, 414, "text/plain; charset=utf-8", "request URI too long\n", head);
        return;
      }
      Query query = Query.parse(uri.getRawQuery());
      if (token != null && !authorised(ex, query, head)) {
        return;
      }
      if (uri.getPath().startsWith(ACTIONS_PREFIX)) {
        if (decisions == null) {
          page(ex, Pages.notFound(), head);
        } else {
          decisions.act(ex, uri.getPath().substring(ACTIONS_PREFIX.length()), post, head);
        }
        return;
      }
      if (post) {
        ex.set("Allow", "GET, HEAD");
        send(ex, 405, "text/plain; charset=utf-8", "method not allowed: only /actions/ take a form\n", false);
        return;
      }
      route(ex, uri.getPath(), query, head);
    } catch (RuntimeException e) {
      LOG.warn("serve: {} {} failed: {}", ex.method(), ex.uri().getPath(), e.toString());
      if (ex.responded()) {
        return; // the response had started; the connection is closed after it
      }
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
  private boolean rightHost(Exchange ex) throws IOException {
    List<String> host = ex.request().header("Host");
    if (host.isEmpty() && ex.protocol().equals("HTTP/1.0")) {
      return true;
    }
    if (host.size() != 1) {
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
  private boolean authorised(Exchange ex, Query query, boolean head) throws IOException {
    String inQuery = query.params().get("token");
    if (inQuery != null && token.matches(inQuery)) {
      // Trade the token in the address for a cookie, and drop it from the address bar and history.
      ex.add("Set-Cookie", AccessToken.COOKIE + "=" + token.value() + "; Path=/; HttpOnly; SameSite=Strict");
      ex.set("Location", withoutToken(ex.uri()));
      send(ex, 303, "text/plain; charset=utf-8", "", true);
      return false;
    }
    RequestHead in = ex.request();
    if (token.matches(AccessToken.presented(in.first("Authorization"), in.header("Cookie")))) {
      return true;
    }
    ex.set("WWW-Authenticate", "Bearer realm=\"orchestrate\"");
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

  /**
   * {@code /items/ID} is the item page {@code /item?id=ID} (the address a user guesses): the one path
   * segment after {@code /items/}, percent-decoded, is the id, looked up and escaped like the query's.
   * A deeper path ({@code /items/A/B}) is no page.
   */
  static String itemIdOf(String rawPath) {
    if (!rawPath.startsWith(ITEMS_PREFIX) || rawPath.length() == ITEMS_PREFIX.length()
        || rawPath.indexOf('/', ITEMS_PREFIX.length()) >= 0) {
      return null;
    }
    try {
      // a path's '+' is a plus, not a query's space
      String id = java.net.URLDecoder.decode(rawPath.substring(ITEMS_PREFIX.length()).replace("+", "%2B"),
          java.nio.charset.StandardCharsets.UTF_8);
      return id.isBlank() ? null : id.strip();
    } catch (IllegalArgumentException e) {
      return null; // a bad escape: no such page
    }
  }

  private void route(Exchange ex, String path, Query query, boolean head) throws IOException {
    String itemId = itemIdOf(ex.uri().getRawPath());
    if (itemId != null) {
      path = "/item";
      query = query.withParam("id", itemId);
    }
    if (path.equals("/static/dashboard.css")) {
      resource(ex, "dashboard.css", "text/css; charset=utf-8", head);
      return;
    }
    if (path.equals("/static/dashboard.js")) {
      resource(ex, "dashboard.js", "text/javascript; charset=utf-8", head);
      return;
    }
    if (!path.equals("/") && !path.equals("/items") && !path.equals("/item") && !path.equals("/jobs")
        && !path.equals("/growth") && !path.equals("/memory") && !path.equals("/log") && !path.equals("/review")) {
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
          case "/review" -> reviewPages.review(db);
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
    ex.set("Server-Timing",
        String.format(java.util.Locale.ROOT, "render;dur=%.1f", (System.nanoTime() - started) / 1e6));
    page(ex, rendered, head);
  }

  static void page(Exchange ex, Pages.Rendered rendered, boolean head) throws IOException {
    send(ex, rendered.status(), "text/html; charset=utf-8", rendered.html(), head);
  }

  private static void resource(Exchange ex, String name, String type, boolean head) throws IOException {
    try (InputStream in = DashboardServer.class.getResourceAsStream("/serve/" + name)) {
      if (in == null) {
        page(ex, Pages.notFound(), head);
        return;
      }
      ex.set("Content-Type", type);
      ex.respond(200, in.readAllBytes(), !head);
    }
  }

  static void send(Exchange ex, int status, String type, String body, boolean head) throws IOException {
    ex.set("Content-Type", type);
    ex.respond(status, body.getBytes(StandardCharsets.UTF_8), !head);
  }

  @Override
  public void close() {
    listener.close();
    if (decisions != null) {
      decisions.close();
    }
  }
}
