package dev.orchestrate.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/**
 * Which failures of {@code npm ping} mean the registry could not be reached (the real-CLI tests
 * then skip) and which do not (the install runs, and fails the tests if it fails): npm 11's output.
 */
class AgentClisTest {
  @Test
  void a_refused_connection_an_unknown_host_or_a_timeout_is_unreachable() {
    assertEquals("the npm registry http://127.0.0.1:9/ could not be reached (npm ping: ECONNREFUSED)",
        AgentClis.unreachable(1, """
            npm notice PING http://127.0.0.1:9/
            npm error code ECONNREFUSED
            npm error syscall connect
            npm error errno ECONNREFUSED
            npm error FetchError: request to http://127.0.0.1:9/-/ping failed, reason: connect ECONNREFUSED 127.0.0.1:9
            """));
    assertEquals("the npm registry http://no-such-host.invalid/ could not be reached (npm ping: ENOTFOUND)",
        AgentClis.unreachable(1, """
            npm notice PING http://no-such-host.invalid/
            npm error code ENOTFOUND
            npm error network request to http://no-such-host.invalid/-/ping failed, reason: getaddrinfo ENOTFOUND
            """));
    assertEquals("the npm registry http://127.0.0.1:47123/ could not be reached (npm ping: network timeout)",
        AgentClis.unreachable(1, """
            npm notice PING http://127.0.0.1:47123/
            npm error code FETCH_ERROR
            npm error errno FETCH_ERROR
            npm error network timeout at: http://127.0.0.1:47123/-/ping
            """));
  }

  @Test
  void an_answer_even_an_error_is_reachable_so_the_install_runs_and_says_what_is_wrong() {
    assertEquals("", AgentClis.unreachable(0, "npm notice PING https://registry.npmjs.org/\nnpm notice PONG 330ms\n"));
    assertEquals("", AgentClis.unreachable(1, """
        npm notice PING http://10.255.255.1/
        npm error code E404
        npm error 404 Not Found - GET http://10.255.255.1/-/ping
        """));
    assertEquals("", AgentClis.unreachable(1, "npm error code E401\nnpm error Unable to authenticate\n"));
  }
}
