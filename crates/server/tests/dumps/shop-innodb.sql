/*M!999999\- enable the sandbox mode */ 
-- MariaDB dump 10.19  Distrib 10.11.19-MariaDB, for debian-linux-gnu (x86_64)
--
-- Host: 127.0.0.1    Database: shop
-- ------------------------------------------------------
-- Server version	10.11.19-MariaDB-0+deb12u1

/*!40101 SET @OLD_CHARACTER_SET_CLIENT=@@CHARACTER_SET_CLIENT */;
/*!40101 SET @OLD_CHARACTER_SET_RESULTS=@@CHARACTER_SET_RESULTS */;
/*!40101 SET @OLD_COLLATION_CONNECTION=@@COLLATION_CONNECTION */;
/*!40101 SET NAMES utf8mb4 */;
/*!40103 SET @OLD_TIME_ZONE=@@TIME_ZONE */;
/*!40103 SET TIME_ZONE='+00:00' */;
/*!40014 SET @OLD_UNIQUE_CHECKS=@@UNIQUE_CHECKS, UNIQUE_CHECKS=0 */;
/*!40014 SET @OLD_FOREIGN_KEY_CHECKS=@@FOREIGN_KEY_CHECKS, FOREIGN_KEY_CHECKS=0 */;
/*!40101 SET @OLD_SQL_MODE=@@SQL_MODE, SQL_MODE='NO_AUTO_VALUE_ON_ZERO' */;
/*!40111 SET @OLD_SQL_NOTES=@@SQL_NOTES, SQL_NOTES=0 */;

--
-- Current Database: `shop`
--

CREATE DATABASE /*!32312 IF NOT EXISTS*/ `shop` /*!40100 DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci */;

USE `shop`;

--
-- Table structure for table `customers`
--

DROP TABLE IF EXISTS `customers`;
/*!40101 SET @saved_cs_client     = @@character_set_client */;
/*!40101 SET character_set_client = utf8mb4 */;
CREATE TABLE `customers` (
  `id` int(10) unsigned NOT NULL AUTO_INCREMENT,
  `email` varchar(120) NOT NULL,
  `name` varchar(80) DEFAULT NULL,
  `born` date DEFAULT NULL,
  `created` datetime(3) NOT NULL DEFAULT '2024-01-01 00:00:00.000',
  `credit` decimal(10,2) NOT NULL DEFAULT 0.00,
  `active` tinyint(1) NOT NULL DEFAULT 1,
  `tier` enum('free','pro','enterprise') NOT NULL DEFAULT 'free',
  `tags` set('a','b','c') DEFAULT NULL,
  `score` double DEFAULT NULL,
  `ratio` float DEFAULT NULL,
  `note` text DEFAULT NULL,
  `avatar` blob DEFAULT NULL,
  PRIMARY KEY (`id`),
  UNIQUE KEY `email` (`email`),
  KEY `by_born` (`born`),
  KEY `by_tier_credit` (`tier`,`credit`)
) ENGINE=InnoDB AUTO_INCREMENT=5 DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci;
/*!40101 SET character_set_client = @saved_cs_client */;

--
-- Dumping data for table `customers`
--

LOCK TABLES `customers` WRITE;
/*!40000 ALTER TABLE `customers` DISABLE KEYS */;
INSERT INTO `customers` VALUES
(1,'a@x.org','Ana','1980-02-29','2024-03-01 10:11:12.345',10.50,1,'pro','a,c',3.25,0.5,'line1\nline2 \'quoted\' \"dq\" \\ back','\0ÿ\'\"\\\n\r\Z'),
(2,'b@x.org','Bo Î©mega',NULL,'2024-03-02 00:00:00.000',-3.00,0,'free','',-0.0000001,1.5,NULL,NULL),
(3,'c@x.org',NULL,'2000-01-01','2024-03-03 23:59:59.999',99999999.99,1,'enterprise','b',1.7976931348623157e308,-2.25,'long text long text long text long text long text long text long text long text long text long text long text long text long text long text long text long text long text long text long text long text long text long text long text long text long text long text long text long text long text long text long text long text long text long text long text long text long text long text long text long text long text long text long text long text long text long text long text long text long text long text ','');
/*!40000 ALTER TABLE `customers` ENABLE KEYS */;
UNLOCK TABLES;

--
-- Table structure for table `empty_table`
--

DROP TABLE IF EXISTS `empty_table`;
/*!40101 SET @saved_cs_client     = @@character_set_client */;
/*!40101 SET character_set_client = utf8mb4 */;
CREATE TABLE `empty_table` (
  `k` varchar(10) NOT NULL,
  `v` int(11) DEFAULT NULL,
  PRIMARY KEY (`k`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci;
/*!40101 SET character_set_client = @saved_cs_client */;

--
-- Dumping data for table `empty_table`
--

LOCK TABLES `empty_table` WRITE;
/*!40000 ALTER TABLE `empty_table` DISABLE KEYS */;
/*!40000 ALTER TABLE `empty_table` ENABLE KEYS */;
UNLOCK TABLES;

--
-- Table structure for table `orders`
--

DROP TABLE IF EXISTS `orders`;
/*!40101 SET @saved_cs_client     = @@character_set_client */;
/*!40101 SET character_set_client = utf8mb4 */;
CREATE TABLE `orders` (
  `id` bigint(20) NOT NULL AUTO_INCREMENT,
  `customer_id` int(10) unsigned NOT NULL,
  `placed` timestamp NOT NULL DEFAULT '2024-01-01 00:00:00',
  `amount` decimal(12,3) NOT NULL,
  `status` char(1) NOT NULL DEFAULT 'n',
  `payload` varbinary(64) DEFAULT NULL,
  `t` time DEFAULT NULL,
  `y` year(4) DEFAULT NULL,
  `big` bigint(20) unsigned DEFAULT NULL,
  `small` smallint(6) DEFAULT NULL,
  `medium` mediumint(9) DEFAULT NULL,
  PRIMARY KEY (`id`),
  KEY `cust` (`customer_id`,`placed`)
) ENGINE=InnoDB AUTO_INCREMENT=1003 DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci;
/*!40101 SET character_set_client = @saved_cs_client */;

--
-- Dumping data for table `orders`
--

LOCK TABLES `orders` WRITE;
/*!40000 ALTER TABLE `orders` DISABLE KEYS */;
INSERT INTO `orders` VALUES
(1000,1,'2024-03-05 12:00:00',12.345,'p','Þ­¾ï','12:34:56',2024,18446744073709551615,-32768,8388607),
(1001,1,'2024-03-06 12:00:00',0.001,'n',NULL,'-01:00:00',1999,0,32767,-8388608),
(1002,3,'2024-03-07 00:00:01',-5.500,'s','','838:59:59',NULL,NULL,NULL,NULL);
/*!40000 ALTER TABLE `orders` ENABLE KEYS */;
UNLOCK TABLES;
/*!40103 SET TIME_ZONE=@OLD_TIME_ZONE */;

/*!40101 SET SQL_MODE=@OLD_SQL_MODE */;
/*!40014 SET FOREIGN_KEY_CHECKS=@OLD_FOREIGN_KEY_CHECKS */;
/*!40014 SET UNIQUE_CHECKS=@OLD_UNIQUE_CHECKS */;
/*!40101 SET CHARACTER_SET_CLIENT=@OLD_CHARACTER_SET_CLIENT */;
/*!40101 SET CHARACTER_SET_RESULTS=@OLD_CHARACTER_SET_RESULTS */;
/*!40101 SET COLLATION_CONNECTION=@OLD_COLLATION_CONNECTION */;
/*!40111 SET SQL_NOTES=@OLD_SQL_NOTES */;

-- Dump completed on 2026-11-28  4:51:54
