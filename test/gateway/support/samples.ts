import { generateKeyPairSync } from 'node:crypto';
import type { OperationName, RequestFields, ValidationContext } from '../../../gateway';

/** A valid request per operation (plaintext, as a caller passes it), typed against the table. */

export const extraDataSample = Buffer.from(JSON.stringify({ campaign: 'tet' })).toString('base64');

const ids = (n: string) => ({ requestId: `req-${n}`, orderId: `ord-${n}` });

const createBase = {
  amount: 50_000,
  orderInfo: 'Thanh toán đơn hàng',
  redirectUrl: 'https://merchant.example/return',
  ipnUrl: 'https://merchant.example/ipn',
  extraData: extraDataSample,
  lang: 'vi',
} as const;

const bindingBase = { ...createBase, partnerClientId: 'user-42' } as const;

export const samples: { [Op in OperationName]: RequestFields<Op> } = {
  'payment.captureWallet': {
    ...ids('cw'),
    ...createBase,
    items: [{ id: 'sku1', name: 'Áo', price: 50_000, quantity: 1 }],
  },
  'payment.payWithCC': { ...ids('cc'), ...createBase, userInfo: { email: 'a@example.com' } },
  'payment.payWithPlatformPayA': { ...ids('pa'), ...createBase, userInfo: { email: 'a@example.com' } },
  'payment.payWithPlatformPayB': { ...ids('pb'), ...createBase, userInfo: { email: 'a@example.com' } },
  'payment.onDelivery': { ...ids('od'), ...createBase },
  'payment.payWithVTS': { ...ids('vts'), ...createBase },
  'payment.payWithEdc': { ...ids('edc'), ...createBase, storeId: 'store-1', instrumentType: 'QR' },
  'payment.payWithMethod': {
    ...ids('pm'),
    ...createBase,
    items: [{ image: 'https://x/y.png', name: 'Sách', quantity: 2, amount: 25_000 }],
    orderExpireTime: 30,
  },
  'payment.pos': {
    ...ids('pos'),
    amount: 20_000,
    paymentCode: 'MM123456789012345678',
    orderInfo: 'POS',
    extraData: '',
  },
  'payment.query': { ...ids('q'), lang: 'en' },
  'refund.create': { ...ids('rf'), amount: 10_000, transId: 2_000_000_001, description: 'Hoàn tiền' },
  'refund.query': { ...ids('rq') },
  'card.settle': { requestId: 'req-settle', storeId: 'store-1', serialNumber: 'SN-001' },
  'payment.confirm': { ...ids('cf'), requestType: 'capture', amount: 50_000, description: 'Giao hàng' },
  'binding.payWithCC': { ...ids('bcc'), ...bindingBase, userInfo: { email: 'a@example.com' } },
  'binding.payWithATM': { ...ids('batm'), ...bindingBase, userInfo: { email: 'a@example.com' } },
  'binding.linkWallet': { ...ids('lw'), ...bindingBase, amount: 0, userInfo: { phoneNumber: '0912345678' } },
  'subscription.start': {
    ...ids('sub'),
    ...bindingBase,
    amount: 0,
    subscriptionInfo: {
      name: 'Gói tháng',
      type: 'VARIABLE',
      recurringAmount: 100_000,
      frequency: 'MONTHLY',
      nextPaymentDate: '2030-01-15',
      expiryDate: '2031-01-15',
    },
  },
  'tokenization.cbQuery': { ...ids('cbq'), partnerClientId: 'user-42' },
  'tokenization.bind': { ...ids('bind'), partnerClientId: 'user-42', callbackToken: 'cb-token' },
  'tokenization.pay': {
    ...ids('tp'),
    amount: 20_000,
    partnerClientId: 'user-42',
    token: { value: 'tok', requireSecurityCode: false },
    orderInfo: 'Thanh toán',
  },
  'tokenization.verify': {
    ...ids('tv'),
    securityCode: '123456',
    token: { value: 'tok', requireSecurityCode: true },
  },
  'tokenization.delete': { ...ids('td'), partnerClientId: 'user-42', token: { value: 'tok' } },
  'subscription.create': { ...ids('sc'), partnerClientId: 'user-42', callbackToken: 'cb' },
  'subscription.pay': {
    ...ids('sp'),
    amount: 100_000,
    partnerClientId: 'user-42',
    token: { value: 'tok', initialOrderId: 'ord-sub' },
    nextPaymentDate: '2030-02-15',
  },
  'subscription.manage': {
    ...ids('sm'),
    partnerClientId: 'user-42',
    token: { value: 'tok', initialOrderId: 'ord-sub' },
    action: 'pause',
  },
  'remittance.exchangeRate': { requestId: 'req-rate', baseCurrency: 'USD' },
  'remittance.buy': {
    ...ids('buy'),
    rateInfo: { baseCurrency: 'USD', exchangeCurrency: 'VND', rate: 25_000, amount: 100.5 },
  },
  'remittance.verify': { ...ids('rv'), receiver: { walletId: '+84912345678', walletName: 'Nguyễn Văn A' } },
  'remittance.create': {
    ...ids('rc'),
    requestType: 'remitToWallet',
    amount: 2_500_000,
    receiver: { walletId: '0912345678', walletName: 'Nguyễn Văn A', personalId: '001099012345' },
    remittanceInfo: {
      name: 'John Smith',
      partnerName: 'Acme Remit',
      orderingCountry: 'US',
      sourceCurrency: 'USD',
      sourceAmount: 100,
      reason: 'RSN01',
    },
    ipnUrl: 'https://merchant.example/ipn',
    autoCapture: true,
  },
  'disbursement.verify': { ...ids('dv'), disbursementMethod: { walletId: '0912345678', personalId: null } },
  'disbursement.balance': { ...ids('db') },
  'disbursement.pay': {
    ...ids('dp'),
    requestType: 'disburseToWallet',
    amount: 1_000_000,
    disbursementMethod: { walletId: '0912345678', walletName: 'Trần Thị B' },
    orderInfo: 'Chi lương',
  },
  'batch.init': { ...ids('batch'), amount: 3000, orderInfo: 'Batch' },
  'batch.create': {
    ...ids('batch'),
    requestId: 'req-batch-create',
    mToken: 'm-token',
    amount: 3000,
    disbursements: [
      { id: 'item-1', method: { walletId: '0912345678', walletName: 'A' }, amount: 1000 },
      { id: 'item-2', method: { walletId: '0912345679', walletName: 'B' }, amount: 2000 },
    ],
  },
  'batch.pay': { ...ids('batch'), requestId: 'req-batch-pay' },
  'batch.query': { ...ids('batch'), requestId: 'req-batch-q', pageSize: 50, pageNum: 1, states: ['PENDING'] },
};

export const sampleContexts: Partial<Record<OperationName, ValidationContext>> = {
  'tokenization.pay': { tokenKind: 'wallet' },
  'subscription.pay': { recurringAmount: 100_000 },
};

export function testKeyPair() {
  return generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
}

export const TEST_KEYS = {
  accessKey: 'F8BBA842ECF85',
  secretKey: 'K951B6PE1waDMi640xX08PD3vg6EkVlz',
} as const;
