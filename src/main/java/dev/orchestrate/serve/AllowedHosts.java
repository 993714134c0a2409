package dev.orchestrate.serve;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * The {@code Host} values the dashboard answers to, against DNS rebinding: a page of another
 * site whose name is made to resolve to this machine reaches the server under that name, so a
 * request naming any host but the bound one is refused before anything is read. An address
 * literal cannot be rebound, so on a wildcard bind (which needs a token anyway) any literal is
 * taken, and a name only when it is {@code localhost} or the name {@code --bind} was given.
 *
 * @param bound the address listened on
 * @param name the host name the address was given as (lower case), or null for a literal
 * @param port the port listened on
 */
record AllowedHosts(InetAddress bound, String name, int port) {
  private static final Pattern IPV4 = Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}");
  private static final Pattern IPV6 = Pattern.compile("\\[[0-9A-Fa-f:.]+\\]");

  /** What {@code configured} (as {@code --bind} named it) allows once listening on {@code port}. */
  static AllowedHosts of(InetSocketAddress configured, int port) {
    String given = configured.getHostString();
    boolean literal = IPV4.matcher(given).matches() || given.contains(":");
    return new AllowedHosts(configured.getAddress(), literal ? null : given.toLowerCase(Locale.ROOT), port);
  }

  /** True when {@code host}, a request's {@code Host} value, names this server and its port. */
  boolean allows(String host) {
    String h = host.strip().toLowerCase(Locale.ROOT);
    String hostPart = h;
    int colon = h.lastIndexOf(':');
    if (colon >= 0 && colon > h.lastIndexOf(']')) {
      if (!h.substring(colon + 1).equals(Integer.toString(port))) {
        return false;
      }
      hostPart = h.substring(0, colon);
    } else if (port != 80) {
      return false;
    }
    InetAddress literal = literal(hostPart);
    if (literal != null) {
      return bound.isAnyLocalAddress() || literal.equals(bound)
          || (bound.isLoopbackAddress() && literal.isLoopbackAddress());
    }
    return hostPart.equals(name) || (hostPart.equals("localhost") && (bound.isLoopbackAddress()
        || bound.isAnyLocalAddress()));
  }

  /** What the refusal says it answers to, without echoing what the request named. */
  String describe() {
    if (bound.isAnyLocalAddress()) {
      return "any address of this machine, or localhost, at port " + port
          + (name == null ? "" : ", or " + name + ":" + port);
    }
    String address = bound.getHostAddress().contains(":") ? "[" + bound.getHostAddress() + "]"
        : bound.getHostAddress();
    return address + ":" + port + (bound.isLoopbackAddress() ? " or localhost:" + port : "")
        + (name == null || name.equals("localhost") ? "" : " or " + name + ":" + port);
  }

  /** The address a literal names, or null when {@code host} is a name (never looked up). */
  private static InetAddress literal(String host) {
    boolean v4 = IPV4.matcher(host).matches();
    if (!v4 && !IPV6.matcher(host).matches()) {
      return null;
    }
    for (String octet : v4 ? host.split("\\.") : new String[0]) {
      if (Integer.parseInt(octet) > 255) {
        return null; // the JDK would look 999.1.1.1 up as a name
      }
    }
    try {
      // A literal (an IPv6 one in brackets, as a Host has it) is parsed, never looked up.
      return InetAddress.getByName(host);
    } catch (UnknownHostException e) {
      return null;
    }
  }
}
