CREATE DATABASE shop;
USE shop;
CREATE TABLE customers (
  id INT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
  email VARCHAR(120) NOT NULL,
  name VARCHAR(80),
  born DATE,
  created DATETIME(3) NOT NULL DEFAULT '2024-01-01 00:00:00.000',
  credit DECIMAL(10,2) NOT NULL DEFAULT 0.00,
  active TINYINT(1) NOT NULL DEFAULT 1,
  tier ENUM('free','pro','enterprise') NOT NULL DEFAULT 'free',
  tags SET('a','b','c'),
  score DOUBLE,
  ratio FLOAT,
  note TEXT,
  avatar BLOB,
  UNIQUE KEY email (email),
  KEY by_born (born),
  KEY by_tier_credit (tier, credit)
) ENGINE=InnoDB;
CREATE TABLE orders (
  id BIGINT NOT NULL AUTO_INCREMENT,
  customer_id INT UNSIGNED NOT NULL,
  placed TIMESTAMP NOT NULL DEFAULT '2024-01-01 00:00:00',
  amount DECIMAL(12,3) NOT NULL,
  status CHAR(1) NOT NULL DEFAULT 'n',
  payload VARBINARY(64),
  t TIME,
  y YEAR,
  big BIGINT UNSIGNED,
  small SMALLINT,
  medium MEDIUMINT,
  PRIMARY KEY (id),
  KEY cust (customer_id, placed)
) ENGINE=InnoDB AUTO_INCREMENT=1000;
CREATE TABLE empty_table (k VARCHAR(10) PRIMARY KEY, v INT) ENGINE=InnoDB;
INSERT INTO customers (email, name, born, created, credit, active, tier, tags, score, ratio, note, avatar) VALUES
 ('a@x.org', 'Ana', '1980-02-29', '2024-03-01 10:11:12.345', 10.50, 1, 'pro', 'a,c', 3.25, 0.5, 'line1\nline2 \'quoted\' "dq" \\ back', X'00FF7F27225C0A0D1A'),
 ('b@x.org', 'Bo Ωmega', NULL, '2024-03-02 00:00:00.000', -3.00, 0, 'free', '', -1e-7, 1.5, NULL, NULL),
 ('c@x.org', NULL, '2000-01-01', '2024-03-03 23:59:59.999', 99999999.99, 1, 'enterprise', 'b', 1.7976931348623157e308, -2.25, REPEAT('long text ', 50), X''),
 ('d@x.org', 'Tab\tName', '1999-12-31', DEFAULT, DEFAULT, DEFAULT, DEFAULT, NULL, 0, 0, '', NULL);
INSERT INTO orders (customer_id, placed, amount, status, payload, t, y, big, small, medium) VALUES
 (1, '2024-03-05 12:00:00', 12.345, 'p', X'DEADBEEF', '12:34:56', 2024, 18446744073709551615, -32768, 8388607),
 (1, '2024-03-06 12:00:00', 0.001, 'n', NULL, '-01:00:00', 1999, 0, 32767, -8388608),
 (3, '2024-03-07 00:00:01', -5.5, 's', X'', '838:59:59', NULL, NULL, NULL, NULL);
DELETE FROM customers WHERE email = 'd@x.org';
