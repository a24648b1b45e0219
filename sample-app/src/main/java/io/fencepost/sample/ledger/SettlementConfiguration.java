package io.fencepost.sample.ledger;

import io.fencepost.sample.SampleProperties;
import java.time.Duration;
import javax.sql.DataSource;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.EnableScheduling;

/** Schedules the settlement job, unless {@code sample.settlement.enabled=false}. */
@Configuration(proxyBeanMethods = false)
@EnableScheduling
@ConditionalOnProperty(prefix = "sample.settlement", name = "enabled", matchIfMissing = true)
class SettlementConfiguration {

    @Bean
    SettlementJob settlementJob(
            SettlementRunRepository runs,
            DataSource dataSource,
            SampleProperties properties,
            @Value("${sample.settlement.cron}") String cron,
            @Value("${sample.settlement.min-hold-time}") Duration minHoldTime) {
        return new SettlementJob(runs, dataSource, properties, cron, minHoldTime);
    }
}
