package org.sqlite;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Member;
import java.lang.reflect.Modifier;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import java.util.TimeZone;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sqlite.date.FastDateFormat;

/**
 * orchestrate's SQLiteConnectionConfig against sqlite-jdbc's: the same members, the same
 * behaviour, except that the date format is built on first use instead of for every connection.
 */
class SQLiteConnectionConfigTest {
  @TempDir
  Path dir;

  @Test
  void has_exactly_the_members_of_the_library_class_it_replaces() throws Exception {
    // The library's own class, from its jar, in a loader that does not see ours.
    URL jar = JDBC.class.getProtectionDomain().getCodeSource().getLocation();
    assertTrue(jar.getPath().contains("sqlite-jdbc"), "the driver comes from sqlite-jdbc's jar: " + jar);
    try (URLClassLoader library = new URLClassLoader(new URL[] {jar}, ClassLoader.getPlatformClassLoader())) {
      Class<?> theirs = library.loadClass(SQLiteConnectionConfig.class.getName());
      assertNotEquals(SQLiteConnectionConfig.class, theirs);
      assertTrue(SQLiteConnectionConfig.class.getProtectionDomain().getCodeSource().getLocation().getPath()
          .contains("classes"), "ours is the one on the class path");
      assertEquals(members(theirs), members(SQLiteConnectionConfig.class),
          "sqlite-jdbc's SQLiteConnectionConfig changed (an upgrade?): bring src/main/java/org/sqlite/"
              + "SQLiteConnectionConfig.java in line with it, or drop it");
      assertEquals(Arrays.toString(theirs.getInterfaces()).replace("class ", ""),
          Arrays.toString(SQLiteConnectionConfig.class.getInterfaces()).replace("class ", ""));
    }
  }

  @Test
  void opening_a_connection_and_querying_builds_no_date_format() throws Exception {
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("a.db"));
        Statement s = c.createStatement()) {
      s.execute("create table t (x integer)");
      s.execute("insert into t values (1)");
      try (ResultSet rs = s.executeQuery("select x from t")) {
        assertTrue(rs.next());
        assertEquals(1, rs.getLong(1));
      }
      SQLiteConnectionConfig config = ((SQLiteConnection) c).getConnectionConfig();
      assertNull(dateFormatField(config), "the connection built its date format");
      assertNull(dateFormatField(new SQLiteConfig().newConnectionConfig()));
    }
  }

  @Test
  void dates_through_jdbc_are_formatted_and_parsed_as_the_library_does() throws Exception {
    Properties text = new Properties();
    text.setProperty(SQLiteConfig.Pragma.DATE_CLASS.pragmaName, "TEXT");
    Timestamp when = Timestamp.valueOf("2026-11-24 21:05:13.250");
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("b.db"), text);
        ResultSet rs = storedAndReadBack(c, when)) {
      // The default pattern in the default time zone, as sqlite-jdbc writes it.
      assertEquals("2026-11-24 21:05:13.250", rs.getString(1));
      assertEquals(when, rs.getTimestamp(1));
      SQLiteConnectionConfig config = ((SQLiteConnection) c).getConnectionConfig();
      assertSame(FastDateFormat.getInstance(SQLiteConfig.DEFAULT_DATE_STRING_FORMAT), config.getDateFormat());
    }

    Properties custom = new Properties();
    custom.putAll(text);
    custom.setProperty(SQLiteConfig.Pragma.DATE_STRING_FORMAT.pragmaName, "yyyy/MM/dd HH:mm");
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("c.db"), custom);
        ResultSet rs = storedAndReadBack(c, when)) {
      assertEquals("2026/11/24 21:05", rs.getString(1));
    }
  }

  /** {@code when} written through JDBC into a new table, and the result set of reading it, on its row. */
  private static ResultSet storedAndReadBack(Connection c, Timestamp when) throws Exception {
    try (Statement s = c.createStatement()) {
      s.execute("create table t (d text)");
    }
    try (PreparedStatement insert = c.prepareStatement("insert into t values (?)")) {
      insert.setTimestamp(1, when);
      insert.executeUpdate();
    }
    ResultSet rs = c.createStatement().executeQuery("select d from t");
    assertTrue(rs.next());
    return rs;
  }

  @Test
  void the_pragma_table_and_a_copy_carry_every_setting() throws Exception {
    Properties p = new Properties();
    p.setProperty(SQLiteConfig.Pragma.DATE_CLASS.pragmaName, "REAL");
    p.setProperty(SQLiteConfig.Pragma.DATE_PRECISION.pragmaName, "SECONDS");
    p.setProperty(SQLiteConfig.Pragma.DATE_STRING_FORMAT.pragmaName, "yyyy");
    p.setProperty(SQLiteConfig.Pragma.TRANSACTION_MODE.pragmaName, "IMMEDIATE");
    p.setProperty(SQLiteConfig.Pragma.JDBC_GET_GENERATED_KEYS.pragmaName, "false");
    SQLiteConnectionConfig config = SQLiteConnectionConfig.fromPragmaTable(p);
    for (SQLiteConnectionConfig c : List.of(config, config.copyConfig())) {
      assertEquals(SQLiteConfig.DateClass.REAL, c.getDateClass());
      assertEquals(SQLiteConfig.DatePrecision.SECONDS, c.getDatePrecision());
      assertEquals(1000L, c.getDateMultiplier());
      assertEquals("yyyy", c.getDateStringFormat());
      assertEquals(Connection.TRANSACTION_SERIALIZABLE, c.getTransactionIsolation());
      assertEquals(SQLiteConfig.TransactionMode.IMMEDIATE, c.getTransactionMode());
      assertEquals("begin immediate;", c.transactionPrefix());
      assertTrue(c.isAutoCommit());
      assertFalse(c.isGetGeneratedKeys());
      assertEquals("2026", c.getDateFormat().format(Timestamp.valueOf("2026-11-24 21:05:13")));
    }
    SQLiteConnectionConfig defaults = SQLiteConnectionConfig.fromPragmaTable(new Properties());
    assertEquals(SQLiteConfig.DateClass.INTEGER, defaults.getDateClass());
    assertEquals(1L, defaults.getDateMultiplier());
    assertEquals("begin;", defaults.transactionPrefix());
    assertTrue(defaults.isGetGeneratedKeys());
    defaults.setTransactionMode(SQLiteConfig.TransactionMode.EXCLUSIVE);
    assertEquals("begin exclusive;", defaults.transactionPrefix());

    // A new pattern replaces a format already built.
    FastDateFormat year = config.getDateFormat();
    config.setDateStringFormat("MM");
    assertNotEquals(year, config.getDateFormat());
    assertEquals(TimeZone.getDefault(), config.getDateFormat().getTimeZone());
    assertEquals("11", config.getDateFormat().format(Timestamp.valueOf("2026-11-24 21:05:13")));
  }

  private static Object dateFormatField(SQLiteConnectionConfig config) throws Exception {
    Field f = SQLiteConnectionConfig.class.getDeclaredField("dateFormat");
    f.setAccessible(true);
    return f.get(config);
  }

  /** Every member other code can use (all but private ones), as sorted signatures. */
  private static List<String> members(Class<?> type) {
    List<String> all = new ArrayList<>();
    Stream.of(type.getDeclaredConstructors()).filter(SQLiteConnectionConfigTest::visible)
        .forEach(c -> all.add(describe(c) + "(" + names(((Constructor<?>) c).getParameterTypes()) + ")"));
    Stream.of(type.getDeclaredMethods()).filter(SQLiteConnectionConfigTest::visible)
        .forEach(m -> all.add(describe(m) + " " + m.getReturnType().getName() + " " + m.getName() + "("
            + names(m.getParameterTypes()) + ")"));
    Stream.of(type.getDeclaredFields()).filter(SQLiteConnectionConfigTest::visible)
        .forEach(f -> all.add(describe(f) + " " + f.getType().getName() + " " + f.getName()));
    all.add("superclass " + type.getSuperclass().getName());
    all.sort(null);
    return all;
  }

  private static boolean visible(Member m) {
    return !m.isSynthetic() && !Modifier.isPrivate(m.getModifiers());
  }

  private static String describe(Member m) {
    return Modifier.toString(m.getModifiers() & (Modifier.PUBLIC | Modifier.PROTECTED | Modifier.STATIC
        | Modifier.FINAL | Modifier.ABSTRACT));
  }

  private static String names(Class<?>[] types) {
    return Stream.of(types).map(Class::getName).collect(Collectors.joining(","));
  }

}
