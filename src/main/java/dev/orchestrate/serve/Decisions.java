package dev.orchestrate.serve;

import static dev.orchestrate.serve.DashboardServer.page;
import static dev.orchestrate.serve.DashboardServer.send;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The decisions of {@code serve --actions}: the forms a page posts to {@code /actions/NAME}, checked
 * (this server's secret, its own origin, a bounded form), then taken one at a time through
 * {@link ReviewActions} on a thread of their own, what each came to kept in {@link ActionResults}
 * for the item's page the browser is sent to.
 */
final class Decisions implements AutoCloseable {
  /** The longest form an action takes: notes are cut at 8,000 characters, up to 9 bytes each once encoded. */
  static final int MAX_FORM_BYTES = 128 * 1024;
  /** How long an answer waits for its action; a longer one (an integration's gates) goes on, and its page says so. */
  static final int ACTION_WAIT_SECONDS = 30;
  private static final Logger LOG = LoggerFactory.getLogger(Decisions.class);

  private final ReviewActions actions;
  private final CsrfToken csrf;
  private final ActionResults results;
  /** Runs the actions one at a time (they take turns on the state anyway), beside the connection that asked. */
  private final ExecutorService acting = Executors.newSingleThreadExecutor(r -> {
    Thread t = new Thread(r, "serve-action");
    t.setDaemon(true);
    return t;
  });

  Decisions(ReviewActions actions, SecureRandom random) {
    this.actions = actions;
    this.csrf = new CsrfToken(random);
    this.results = new ActionResults(random);
  }

  CsrfToken csrf() {
    return csrf;
  }

  ActionResults results() {
    return results;
  }

  ReviewActions actions() {
    return actions;
  }

  /**
   * An action's form ({@code POST /actions/approve|reject|unblock}): refused unless it is a POST of
   * this server's own page (its Origin, when the browser sends one, and the form's secret), then
   * taken as the command would take it, and the browser sent to the item's page, which says what
   * became of it ({@code ?result=KEY}).
   */
  void act(Exchange ex, String action, boolean post, boolean head) throws IOException {
    if (!(action.equals("approve") || action.equals("reject") || action.equals("unblock"))) {
      page(ex, Pages.notFound(), head);
      return;
    }
    if (!post) {
      ex.set("Allow", "POST");
      send(ex, 405, "text/plain; charset=utf-8", "method not allowed: an action is a POST of its form\n", head);
      return;
    }
    Query form = form(ex);
    if (form == null) {
      return;
    }
    String id = form.get("id");
    if (id == null) {
      send(ex, 400, "text/plain; charset=utf-8", "bad request: the form names no item\n", false);
      return;
    }
    String key = take(action, id, form);
    if (key == null) {
      return; // the server is stopping
    }
    ex.set("Location", "/item?id=" + Query.encode(id) + "&result=" + key);
    send(ex, 303, "text/plain; charset=utf-8", "", false);
  }

  /**
   * The action's form when it comes from this server's own page (its Origin, when the browser sends
   * one, and the form's secret); otherwise null, the refusal sent.
   */
  private Query form(Exchange ex) throws IOException {
    String origin = ex.request().first("Origin");
    if (origin != null && !origin.equalsIgnoreCase("http://" + ex.request().first("Host"))) {
      send(ex, 403, "text/plain; charset=utf-8", "forbidden: the form is not from this dashboard\n", false);
      return null;
    }
    String type = ex.request().first("Content-Type");
    if (type == null || !type.toLowerCase(java.util.Locale.ROOT).startsWith("application/x-www-form-urlencoded")) {
      send(ex, 415, "text/plain; charset=utf-8", "unsupported media type: send the page's form\n", false);
      return null;
    }
    Query form;
    try {
      form = Query.parse(new String(ex.body(MAX_FORM_BYTES), StandardCharsets.UTF_8));
    } catch (Exchange.BodyRefused e) {
      send(ex, e.status, "text/plain; charset=utf-8", e.getMessage() + "\n", false);
      return null;
    }
    if (!csrf.matches(form.params().get(CsrfToken.FIELD))) {
      send(ex, 403, "text/plain; charset=utf-8",
          "forbidden: the form's token is not this server's (reload the page and try again)\n", false);
      return null;
    }
    return form;
  }

  /**
   * Takes the action on the actions' thread, waiting for it up to {@link #ACTION_WAIT_SECONDS}, and
   * returns the key of its result (filled in when it ends); null when the server is stopping.
   */
  private String take(String action, String id, Query form) {
    String key = results.start();
    Future<?> running = acting.submit(() -> {
      ReviewActions.Result r;
      try {
        r = switch (action) {
          case "approve" -> actions.approve(id);
          case "reject" -> actions.reject(id, form.params().get("notes"), form.get("phase"));
          default -> actions.unblock(id, form.params().get("notes"), form.get("rebase") != null);
        };
      } catch (RuntimeException e) {
        LOG.warn("serve: {} {} failed: {}", action, id, e.toString());
        r = new ReviewActions.Result(false, action + " " + id + " failed: " + e.getMessage());
      }
      results.end(key, r.applied(), r.message());
    });
    try {
      running.get(ACTION_WAIT_SECONDS, TimeUnit.SECONDS);
    } catch (TimeoutException e) {
      // still working: the item's page says so until it ends
    } catch (ExecutionException e) {
      LOG.warn("serve: {} {} failed: {}", action, id, e.getCause().toString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    }
    return key;
  }

  @Override
  public void close() {
    acting.shutdownNow();
  }
}
