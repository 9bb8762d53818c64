import { createGatewayClient, isGatewayError, type GatewayClient } from '../gateway';
import type { Logger } from '../platform/logger';
import { gatewayCallDuration, gatewayCalls } from '../platform/metrics';
import type { GatewaySettings } from '../platform/require-services';

/** The gateway client activities use, counting every call by operation and result code. */
export function createInstrumentedGateway(settings: GatewaySettings, logger?: Logger): GatewayClient {
  const client = createGatewayClient({
    baseUrl: settings.baseUrl,
    partnerCode: settings.partnerCode,
    accessKey: settings.accessKey,
    secretKey: settings.secretKey,
    gatewayPublicKey: settings.publicKey,
    logger: logger?.child({ component: 'gateway' }),
  });
  return {
    prepare: client.prepare,
    call: async (operation, fields, options) => {
      const stopTimer = gatewayCallDuration.startTimer({ operation });
      try {
        const result = await client.call(operation, fields, options);
        gatewayCalls.inc({ operation, result_code: String(result.resultCode) });
        return result;
      } catch (error) {
        const code =
          isGatewayError(error) && 'resultCode' in error
            ? String((error as { resultCode: number }).resultCode)
            : 'error';
        gatewayCalls.inc({ operation, result_code: code });
        throw error;
      } finally {
        stopTimer();
      }
    },
  };
}
