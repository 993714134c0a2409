package dev.orchestrate.state.postgres;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * A PostgreSQL state location, as libpq writes a connection URI:
 * {@code postgresql://[user@]host[:port][/database][?schema=NAME&sslmode=MODE]} (or
 * {@code postgres://…}). The state lives in one schema of that database ({@value #DEFAULT_SCHEMA}
 * unless {@code schema} says otherwise), so that several states can share a database.
 *
 * <p>What the URI leaves out is taken as libpq takes it: the user from {@code PGUSER}, else the
 * operating-system user; the database from {@code PGDATABASE}, else the user's name; the port
 * 5432. The host is required in effect ({@code localhost} when empty): the JDBC driver cannot use a
 * Unix socket.
 *
 * <p>A password in the location is refused, never used: it would show in {@code ps}, in the shell
 * history and in every message that names the location. The password comes from
 * {@code PGPASSWORD} or a password file ({@link PgPass}); the location is shown without one.
 */
record PostgresLocation(String user, String host, int port, String database, String schema, String sslMode) {
  static final String DEFAULT_SCHEMA = "orchestrate";
  static final int DEFAULT_PORT = 5432;
  /** A schema name that needs no quoting anywhere: lower case, as PostgreSQL folds unquoted names. */
  private static final Pattern SCHEMA = Pattern.compile("[a-z_][a-z0-9_]{0,62}");
  private static final java.util.Set<String> SSL_MODES = java.util.Set.of("disable", "allow", "prefer", "require",
      "verify-ca", "verify-full");

  /** A location that cannot be used, with a one-line reason that never shows a password. */
  static final class InvalidLocation extends IllegalArgumentException {
    InvalidLocation(String message) {
      super(message);
    }
  }

  /** Whether {@code location} names a PostgreSQL database rather than a state directory. */
  static boolean names(String location) {
    return location.startsWith("postgresql://") || location.startsWith("postgres://");
  }

  /**
   * Parses {@code location}; {@code env} supplies the defaults libpq would take from the environment.
   *
   * @throws InvalidLocation with a one-line reason when it cannot be used (a password in it first of all)
   */
  static PostgresLocation parse(String location, Map<String, String> env) {
    if (!names(location)) {
      throw new InvalidLocation("not a PostgreSQL location (postgresql://user@host:port/database): "
          + masked(location));
    }
    String rest = location.substring(location.indexOf("://") + 3);
    String query = "";
    int q = rest.indexOf('?');
    if (q >= 0) {
      query = rest.substring(q + 1);
      rest = rest.substring(0, q);
    }
    int slash = rest.indexOf('/');
    String authority = slash < 0 ? rest : rest.substring(0, slash);
    String path = slash < 0 ? "" : rest.substring(slash + 1);

    String userInfo = null;
    int at = authority.lastIndexOf('@');
    if (at >= 0) {
      userInfo = authority.substring(0, at);
      authority = authority.substring(at + 1);
    }
    Map<String, String> params = params(query, location);
    if ((userInfo != null && userInfo.indexOf(':') >= 0) || params.containsKey("password")) {
      throw new InvalidLocation("the state location " + masked(location) + " contains a password, which would show"
          + " in ps, in the shell history and in messages; remove it, and set PGPASSWORD or put the password in"
          + " ~/.pgpass (or the file PGPASSFILE names) instead");
    }
    if (authority.indexOf(',') >= 0) {
      throw new InvalidLocation("the state location " + masked(location) + " names several hosts; name one");
    }

    String host;
    String portText = null;
    if (authority.startsWith("[")) {
      int close = authority.indexOf(']');
      if (close < 0) {
        throw new InvalidLocation("the state location " + masked(location) + " has an unclosed [ in its host");
      }
      host = authority.substring(1, close);
      String after = authority.substring(close + 1);
      if (after.startsWith(":")) {
        portText = after.substring(1);
      } else if (!after.isEmpty()) {
        throw new InvalidLocation("the state location " + masked(location) + " has something after its host");
      }
    } else {
      int colon = authority.lastIndexOf(':');
      host = colon < 0 ? authority : authority.substring(0, colon);
      portText = colon < 0 ? null : authority.substring(colon + 1);
      host = decode(host, location);
    }
    if (host.isEmpty()) {
      host = "localhost";
    }
    int port = DEFAULT_PORT;
    if (portText != null && !portText.isEmpty()) {
      try {
        port = Integer.parseInt(portText);
      } catch (NumberFormatException e) {
        port = -1;
      }
      if (port < 1 || port > 65_535) {
        throw new InvalidLocation("the state location " + masked(location) + " has the port '" + portText
            + "'; a port is a number from 1 to 65535");
      }
    }

    String user = userInfo == null || userInfo.isEmpty() ? null : decode(userInfo, location);
    if (user == null) {
      user = nonEmpty(env.get("PGUSER"), System.getProperty("user.name"));
    }
    String database = path.isEmpty() ? null : decode(path, location);
    if (database != null && database.indexOf('/') >= 0) {
      throw new InvalidLocation("the state location " + masked(location) + " has the database '" + database
          + "'; a database name has no '/' (the schema goes in ?schema=NAME)");
    }
    if (database == null) {
      database = nonEmpty(env.get("PGDATABASE"), user);
    }

    String schema = params.getOrDefault("schema", DEFAULT_SCHEMA);
    if (!SCHEMA.matcher(schema).matches()) {
      throw new InvalidLocation("the state location " + masked(location) + " has the schema '" + schema
          + "'; a schema here is a lower-case name of letters, digits and _ (at most 63), not starting with a digit");
    }
    String sslMode = params.get("sslmode");
    if (sslMode != null && !SSL_MODES.contains(sslMode)) {
      throw new InvalidLocation("the state location " + masked(location) + " has sslmode '" + sslMode
          + "'; it is one of " + String.join(", ", new java.util.TreeSet<>(SSL_MODES)));
    }
    for (String key : params.keySet()) {
      if (!key.equals("schema") && !key.equals("sslmode")) {
        throw new InvalidLocation("the state location " + masked(location) + " has the parameter '" + key
            + "'; it takes schema and sslmode only");
      }
    }
    return new PostgresLocation(user, host, port, database, schema, sslMode);
  }

  /** The URL the JDBC driver connects to (no user, no password: those go as properties). */
  String jdbcUrl() {
    String h = host.indexOf(':') >= 0 ? "[" + host + "]" : host;
    return "jdbc:postgresql://" + h + ":" + port + "/" + encode(database);
  }

  /** The location as messages show it: every part spelled out, never a password. */
  String display() {
    String h = host.indexOf(':') >= 0 ? "[" + host + "]" : host;
    return "postgresql://" + encode(user) + "@" + h + ":" + port + "/" + encode(database) + "?schema=" + schema
        + (sslMode == null ? "" : "&sslmode=" + sslMode);
  }

  @Override
  public String toString() {
    return display();
  }

  /**
   * {@code location} as a message may show it: the password of its user part, and a password
   * parameter, replaced by {@code ***}.
   */
  static String masked(String location) {
    String out = location;
    int scheme = out.indexOf("://");
    if (scheme >= 0) {
      int start = scheme + 3;
      int end = out.length();
      for (char c : new char[] {'/', '?'}) {
        int i = out.indexOf(c, start);
        if (i >= 0 && i < end) {
          end = i;
        }
      }
      String authority = out.substring(start, end);
      int at = authority.lastIndexOf('@');
      if (at >= 0) {
        String userInfo = authority.substring(0, at);
        int colon = userInfo.indexOf(':');
        if (colon >= 0) {
          authority = userInfo.substring(0, colon) + ":***" + authority.substring(at);
        }
      }
      out = out.substring(0, start) + authority + out.substring(end);
    }
    return out.replaceAll("([?&][Pp][Aa][Ss][Ss][Ww][Oo][Rr][Dd]=)[^&]*", "$1***");
  }

  private static Map<String, String> params(String query, String location) {
    Map<String, String> out = new LinkedHashMap<>();
    if (query.isEmpty()) {
      return out;
    }
    for (String pair : query.split("&", -1)) {
      if (pair.isEmpty()) {
        continue;
      }
      int eq = pair.indexOf('=');
      String key = decode(eq < 0 ? pair : pair.substring(0, eq), location).toLowerCase(Locale.ROOT);
      String value = eq < 0 ? "" : pair.substring(eq + 1);
      if (!key.equals("password")) { // never decoded, never shown
        value = decode(value, location);
      }
      if (out.put(key, value) != null) {
        throw new InvalidLocation("the state location " + masked(location) + " gives '" + key + "' twice");
      }
    }
    return out;
  }

  /** Percent-decoding as URIs have it ({@code +} stays a plus). */
  private static String decode(String s, String location) {
    if (s.indexOf('%') < 0) {
      return s;
    }
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '%') {
        if (i + 2 >= s.length() || Character.digit(s.charAt(i + 1), 16) < 0
            || Character.digit(s.charAt(i + 2), 16) < 0) {
          throw new InvalidLocation("the state location " + masked(location) + " has a malformed %-escape");
        }
        bytes.write(Character.digit(s.charAt(i + 1), 16) * 16 + Character.digit(s.charAt(i + 2), 16));
        i += 2;
      } else {
        byte[] b = String.valueOf(c).getBytes(StandardCharsets.UTF_8);
        bytes.write(b, 0, b.length);
      }
    }
    return bytes.toString(StandardCharsets.UTF_8);
  }

  private static String encode(String s) {
    StringBuilder out = new StringBuilder();
    for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
      char c = (char) (b & 0xff);
      if (Character.isLetterOrDigit(c) && c < 128 || "-._~".indexOf(c) >= 0) {
        out.append(c);
      } else {
        out.append('%').append(String.format("%02X", b & 0xff));
      }
    }
    return out.toString();
  }

  private static String nonEmpty(String first, String second) {
    return first != null && !first.isEmpty() ? first : second;
  }
}
