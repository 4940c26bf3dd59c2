// gpuplan web page: forms → JSON API (the same reports the CLI prints) → tables and inline SVG charts.
// No framework: the page is a few forms and four charts. State lives in the URL's query string.
'use strict';

const I18N = {
  en: {
    tagline: 'GPUs, time and cost of training and serving large models', copy_link: 'Copy link', copied: 'Link copied',
    tab_train: 'Training', tab_memory: 'Memory & layout', tab_plan: 'Planner', tab_serve: 'Serving',
    serving: 'Serving', precision: 'Weights', weight_quant: "Quantisation method (sets the weights' bytes; empty: none named)", wq_none: 'none named', input_len: 'Input tokens', output_len: 'Output tokens', rps: 'Requests/s',
    latency_target: 'TPOT target, ms (empty: 50)', disaggregate: 'Separate prefill and decode pools',
    engine: 'Serving engine (its KV-cache and batch defaults)',
    engine_default: 'vLLM (--memory-utilization)',
    k_layout: 'Layout', k_tpot: 'Time per output token', k_ttft: 'Time to first token', serve_title: 'Layouts tried',
    feasible_col: 'Feasible', batch_col: 'Batch', tpot_col: 'TPOT', replicas_col: 'Replicas', gpus_col: 'GPUs',
    per_replica_col: 'GPUs/replica', note_col: 'Note', yes: 'yes', no: 'no',
    model_gpu: 'Model and GPUs', model: 'Model', paste_config: '…or paste a config.json (used instead of the menu)',
    config_file: '…or load a config.json file', config_not_in_link: 'This config.json is too long for the link: the link keeps the other fields.',
    gpu: 'GPU', framework: 'Training framework', framework_generic: 'Not specified (generic)', gpus: 'GPU count', training: 'Training run', tokens: 'Training tokens',
    solve_time: 'Given GPUs: solve time', solve_gpus: 'Given a deadline: solve GPUs', deadline: 'Deadline',
    mfu: 'MFU (model FLOPs utilisation)', price: 'Price per GPU-hour (empty: catalog)', layout: 'Layout',
    seq_len: 'Sequence length', micro_batch: 'Micro-batch', recompute: 'Recompute',
    safety_margin: 'Memory kept free (fraction of the GPU; tuned stacks: 0.03–0.07)',
    global_batch: 'Global batch (sequences, 0: automatic)',
    pins: 'Pin the layout (empty: the planner chooses)', pin_free: "planner's",
    pipeline_layout: 'Megatron pipeline layout (E embedding, t layer, m MTP, L loss, | between stages)',
    moe_a2a_overlap: "MoE all-to-all under another micro-batch's computation", moe_a2a_default: "the framework's default", on: 'on', off: 'off',
    k_time: 'Wall-clock time', k_gpus: 'GPUs', k_gpu_hours: 'GPU-hours', k_cost: 'Total cost',
    sweep_title: 'Time and cost against GPU count', sweep_note: 'Same model, tokens and MFU; each GPU type at its catalog price.',
    chart_days: 'Wall-clock days', chart_cost_usd: 'Cost (million USD)', chart_cost_cny: 'Cost (million CNY)', gpu_count: 'GPUs',
    market: 'Market', market_auto: 'From the language', market_cn: 'China (CNY listings)', market_us: 'US (USD listings)',
    currency: 'Currency', currency_auto: "The market's", compare_own: 'Compare with owning the cluster',
    fleet: 'Fleet utilisation of an owned cluster (0–1, empty: 0.5)', own_title: "Rent or own: this run's cost against fleet utilisation",
    own_note: 'An owned cluster pays depreciation, interest, machine room and staff whether busy or not; the less of its life it is busy, the more each busy hour costs. Formulas and sources: docs/rent-or-buy.md.',
    own_x: 'Fleet utilisation', own_owned: 'owned', own_on_demand: 'rented on-demand', own_reserved: 'rented reserved', own_spot: 'rented spot',
    own_break_even: 'break-even', log_axis: 'log scale',
    mem_title: 'Memory per GPU against capacity', plan_title: 'Ranked layouts', report: 'Report',
    capacity: 'capacity', usable: 'usable (after safety margin)', peak: 'peak', fits: 'fits', no_fit: 'does not fit',
    step_title: 'Step-time breakdown of the chosen layout', plan_missing: 'The planner is not in this build.',
    plan_pick: 'Click a row to see its step time.', assumptions: 'Assumptions', warnings: 'Warnings',
    loading: 'Computing…', rank: '#', layout_col: 'Layout', step_s: 'Step', mfu_col: 'MFU', mem_col: 'Memory/GPU',
    comm_col: 'Comm.', bubble_col: 'Bubble', tok_col: 'Tokens/s/GPU',
    footer: 'Numbers from the same library as the gpuplan command line; formulas and sources in docs/formulas.md.',
    seg_weights: 'weights', seg_gradients: 'gradients', seg_optimizer: 'optimizer', seg_activations: 'activations',
    seg_logits: 'logits', seg_comm: 'comm. buffers', seg_zero3: 'ZeRO-3 gathered', seg_context: 'CUDA context',
    seg_frag: 'fragmentation', seg_overhead: 'context, buffers, fragmentation', st_gemm: 'GEMMs', st_attention: 'attention', st_elementwise: 'element-wise',
    st_recompute: 'recompute', st_tp: 'TP comm.', st_pp: 'PP comm.', st_dp: 'DP/ZeRO comm.', st_cp: 'CP comm.',
    st_ep: 'EP comm.', st_bubble: 'pipeline bubble', st_optimizer: 'optimizer',
    epochs: 'Epochs', train_precision: 'Precision', fault_budget: 'Fault budget, fraction of compute (empty: computed)',
    prices: 'Prices', rent_title: 'Renting: on-demand, reserved and spot side by side',
    rent_note: 'Spot takes more GPU-hours and days: each preemption restarts the run from its last checkpoint (rates in the report\'s operations section).',
    way_on_demand: 'On-demand', way_reserved: 'Reserved', way_spot: 'Spot',
    tab_finetune: 'Fine-tuning', finetuning: 'Fine-tuning run', ft_alternatives: 'Changes that make it fit', ft_method: 'Method', ft_full: 'Full', ft_rank: 'LoRA rank (empty: 8, QLoRA 64)',
    ft_samples: 'Samples', ft_tokens: '…or dataset tokens', ft_precision: 'Precision', ft_gpus: 'GPU count (empty: fewest that fit)',
    ft_deadline: 'Deadline (empty: none)', k_ft_memory: 'Memory per GPU', ft_cheapest: 'Cheapest GPU types for this job',
    ft_smallest: 'fewest that fit', ft_mem_title: 'Memory per GPU against capacity',
    sweep_progress: 'Computing the curves: {done} of {total} points', sweep_failed: '{n} of {total} points could not be computed',
    export_to: 'Launch configuration of the chosen layout', export_own: "The framework's own format", export_btn: 'Download',
    export_done: 'Saved {file} ({format}, layout ranked {rank}, read by {runner})', export_launch: 'Start it with:', dp_attn_col: 'DP-attn',
    error_stale: 'The numbers below were cleared: they belonged to the previous inputs.',
    rc_none: 'no recompute', rc_selective: 'selective recompute', rc_full: 'full recompute',
  },
  zh: {
    tagline: '大模型训练与推理部署所需的 GPU、时间与成本', copy_link: '复制链接', copied: '链接已复制',
    tab_train: '训练', tab_memory: '显存与并行', tab_plan: '并行规划', tab_serve: '推理部署',
    serving: '推理部署', precision: '权重精度', weight_quant: '量化方法（决定权重字节数；留空：不指定）', wq_none: '不指定', input_len: '输入 token 数', output_len: '输出 token 数', rps: '每秒请求数',
    latency_target: '每 token 时间目标，毫秒（留空：50）', disaggregate: '预填充与解码分池部署',
    engine: '推理引擎（按其 KV 缓存与批大小默认值）',
    engine_default: 'vLLM（按 --memory-utilization）',
    k_layout: '部署布局', k_tpot: '每输出 token 时间', k_ttft: '首 token 延迟', serve_title: '尝试过的布局',
    feasible_col: '可行', batch_col: '批量', tpot_col: '每 token 时间', replicas_col: '副本数', gpus_col: '卡数',
    per_replica_col: '每副本卡数', note_col: '说明', yes: '是', no: '否',
    model_gpu: '模型与 GPU', model: '模型', paste_config: '…或粘贴 config.json（优先于下拉菜单）',
    config_file: '…或从文件载入 config.json', config_not_in_link: '此 config.json 太长，未放入链接：链接只保留其他字段。',
    gpu: 'GPU 型号', framework: '训练框架', framework_generic: '未指定（通用）', gpus: 'GPU 数量', training: '训练任务', tokens: '训练 token 数',
    solve_time: '给定卡数：求时间', solve_gpus: '给定工期：求卡数', deadline: '工期',
    mfu: 'MFU（模型算力利用率）', price: '每卡时价格（留空：价格目录）', layout: '并行方式',
    seq_len: '序列长度', micro_batch: '微批大小', recompute: '重计算',
    safety_margin: '预留显存（占整卡的比例；调优过的框架为 0.03–0.07）',
    global_batch: '全局批大小（序列数，0：自动）',
    pins: '固定并行布局（留空：由规划器选择）', pin_free: '由规划器选',
    pipeline_layout: 'Megatron 流水线分段（E 嵌入，t Transformer 层，m MTP 层，L 损失，| 分隔各段）',
    moe_a2a_overlap: 'MoE all-to-all 与另一微批的计算重叠', moe_a2a_default: '按框架默认', on: '开', off: '关',
    k_time: '训练时长', k_gpus: 'GPU 数量', k_gpu_hours: '卡时', k_cost: '总成本',
    sweep_title: '时间与成本随 GPU 数量的变化', sweep_note: '模型、token 数与 MFU 相同；各型号按价格目录计价。',
    chart_days: '训练天数', chart_cost_usd: '成本（百万美元）', chart_cost_cny: '成本（百万元）', gpu_count: 'GPU 数量',
    market: '市场', market_auto: '随界面语言', market_cn: '中国（人民币报价）', market_us: '美国（美元报价）',
    currency: '币种', currency_auto: '随市场', compare_own: '与自建集群对比',
    fleet: '自建集群利用率（0–1，留空为 0.5）', own_title: '租用还是自建：本次训练费用随集群利用率的变化',
    own_note: '自建集群无论忙闲都要承担折旧、利息、机房和人力；寿命内忙碌的时间越少，每个有效小时越贵。公式与出处见 docs/rent-or-buy.md。',
    own_x: '集群利用率', own_owned: '自建', own_on_demand: '按需租用', own_reserved: '预留租用', own_spot: '竞价租用',
    own_break_even: '持平点', log_axis: '对数刻度',
    mem_title: '单卡显存占用与容量', plan_title: '并行方案排名', report: '报告',
    capacity: '容量', usable: '可用（扣除安全余量）', peak: '峰值', fits: '放得下', no_fit: '放不下',
    step_title: '所选方案的单步时间构成', plan_missing: '此版本未包含并行规划器。',
    plan_pick: '点击一行查看其单步时间。', assumptions: '假设', warnings: '警告',
    loading: '计算中…', rank: '#', layout_col: '并行方式', step_s: '单步', mfu_col: 'MFU', mem_col: '单卡显存',
    comm_col: '通信', bubble_col: '气泡', tok_col: '每卡 token/s',
    footer: '数字与 gpuplan 命令行来自同一个库；公式与出处见 docs/formulas.md。',
    seg_weights: '权重', seg_gradients: '梯度', seg_optimizer: '优化器状态', seg_activations: '激活值',
    seg_logits: 'logits', seg_comm: '通信缓冲', seg_zero3: 'ZeRO-3 聚合参数', seg_context: 'CUDA 上下文',
    seg_frag: '碎片', seg_overhead: '上下文、缓冲、碎片', st_gemm: '矩阵乘', st_attention: '注意力', st_elementwise: '逐元素运算',
    st_recompute: '重计算', st_tp: 'TP 通信', st_pp: 'PP 通信', st_dp: 'DP/ZeRO 通信', st_cp: 'CP 通信',
    st_ep: 'EP 通信', st_bubble: '流水线气泡', st_optimizer: '优化器',
    epochs: '训练轮数', train_precision: '训练精度', fault_budget: '故障时间预算，占计算时间比例（留空：自动计算）',
    prices: '价格', rent_title: '租用方式对比：按需、预留、竞价',
    rent_note: '竞价实例卡时和天数更多：每次被回收都要从上一个检查点重启（回收频率见报告的运维部分）。',
    way_on_demand: '按需', way_reserved: '预留', way_spot: '竞价',
    tab_finetune: '微调', finetuning: '微调任务', ft_alternatives: '能放下的改法', ft_method: '微调方式', ft_full: '全参数', ft_rank: 'LoRA 秩（留空：8，QLoRA 为 64）',
    ft_samples: '样本数', ft_tokens: '…或数据集 token 数', ft_precision: '计算精度', ft_gpus: 'GPU 数量（留空：放得下的最少卡数）',
    ft_deadline: '工期（留空：不限）', k_ft_memory: '单卡显存', ft_cheapest: '本任务最便宜的 GPU 型号',
    ft_smallest: '最少可放下', ft_mem_title: '单卡显存占用与容量',
    sweep_progress: '正在计算曲线：已完成 {done}/{total} 个点', sweep_failed: '{total} 个点中有 {n} 个无法计算',
    export_to: '所选方案的启动配置', export_own: '该框架自己的格式', export_btn: '下载',
    export_done: '已保存 {file}（{format}，排名第 {rank} 的方案，由 {runner} 读取）', export_launch: '启动命令：', dp_attn_col: '注意力 DP',
    error_stale: '下方数字已清空：它们属于之前的输入。',
    rc_none: '不重计算', rc_selective: '选择性重计算', rc_full: '完整重计算',
  },
};

const COLORS = ['#2f6fdf', '#e07b24', '#1f8a4c', '#b23a8f', '#7a5cd6', '#c2372c', '#0f8ea1', '#8a6d1f', '#5b6577', '#d6a31c', '#3b3b98'];
// Form fields mirrored in the URL, with their defaults.
const FIELDS = {
  tab: 'train', model: 'llama-3.1-70b', config: '', gpu: 'h100', gpus: '1024', tokens: '15T', solve: 'gpus',
  deadline: '90d', mfu: '0.4', price: '', seq_len: '', tp: '8', pp: '4', zero: '1', micro_batch: '1',
  recompute: 'none', global_batch: '0', safety_margin: '0.15', framework: 'generic', market: '', currency: '', own: '', fleet: '',
  pin_tp: '', pin_pp: '', pin_dp: '', pin_cp: '', pin_ep: '', pin_vp: '', pin_etp: '', pin_micro_batch: '', pin_zero: '', pin_recompute: '',
  pipeline_layout: '', moe_a2a_overlap: '',
  precision: 'fp16', weight_quant: '', input: '2048', output: '512', rps: '20', latency_target_ms: '', disaggregate: '', engine: '',
  epochs: '1', train_precision: 'bf16', fault_budget: '',
  ft_method: 'lora', ft_rank: '', ft_samples: '50k', ft_tokens: '', ft_epochs: '3', ft_precision: 'bf16', ft_gpus: '', ft_deadline: '',
};
// The layout pins of the Training and Planner tabs (key → form field): empty ones are left to the planner.
const PIN_FIELDS = { tp: 'pin_tp', pp: 'pin_pp', dp: 'pin_dp', cp: 'pin_cp', ep: 'pin_ep', vp: 'pin_vp', etp: 'pin_etp',
                     micro_batch: 'pin_micro_batch', zero: 'pin_zero', recompute: 'pin_recompute',
                     pipeline_layout: 'pipeline_layout', moe_a2a_overlap: 'moe_a2a_overlap' };
function addPins(b) {
  for (const [key, field] of Object.entries(PIN_FIELDS)) if (state[field]) b[key] = state[field];
  return b;
}
// The form field a request key of each tab comes from (the rest share the key's name), so an error marks it.
const FIELD_OF_KEY = {
  train: { precision: 'train_precision', fleet_utilisation: 'fleet', compare_own: 'own', ...PIN_FIELDS },
  plan: { export: 'export_to', ...PIN_FIELDS },
  finetune: { method: 'ft_method', rank: 'ft_rank', samples: 'ft_samples', tokens: 'ft_tokens', epochs: 'ft_epochs',
              precision: 'ft_precision', gpus: 'ft_gpus', deadline: 'ft_deadline' },
};
const SWEEP_GPUS = ['h100', 'a100-80g', 'h200', '910b', 'h800', 'h20'];
// A pasted config.json goes into the link compacted, when it stays this short once
// URL-encoded: the server refuses request lines over 8,192 bytes (HTTP 414).
const MAX_CONFIG_IN_URL = 6000;

const $ = (sel) => document.querySelector(sel);
const state = {};
let lang = localStorage.getItem('gpuplan.lang') || ((navigator.language || '').startsWith('zh') ? 'zh' : 'en');
let catalog = { models: [], gpus: [] };
let last = {};          // last responses, re-rendered when the language changes
let seq = 0;            // newest request wins

const t = (k) => (I18N[lang] && I18N[lang][k]) || I18N.en[k] || k;
// A label with {name} slots filled.
const tf = (k, vals) => t(k).replace(/\{(\w+)\}/g, (m, n) => (n in vals ? String(vals[n]) : m));

// ---------- state ⇄ URL ⇄ form ----------
// The config.json as the link carries it (compact JSON), or null when that is too long.
function configForUrl(text) {
  let compact = text;
  try { compact = JSON.stringify(JSON.parse(text)); } catch (e) { /* half typed: as it is */ }
  return encodeURIComponent(compact).length <= MAX_CONFIG_IN_URL ? compact : null;
}
function readUrl() {
  const q = new URLSearchParams(location.search);
  for (const [k, d] of Object.entries(FIELDS)) state[k] = q.has(k) ? q.get(k) : d;
  try { if (state.config) state.config = JSON.stringify(JSON.parse(state.config), null, 2); } catch (e) { /* shown as it came */ }
}
function writeUrl() {
  const q = new URLSearchParams();
  let configLeftOut = false;
  for (const k of Object.keys(FIELDS)) {
    if (state[k] === '' || state[k] === undefined) continue;
    if (k === 'config') {
      const c = configForUrl(state.config);
      if (c === null) configLeftOut = true; else q.set(k, c);
    } else {
      q.set(k, state[k]);
    }
  }
  $('#config-not-in-link').hidden = !configLeftOut;
  history.replaceState(null, '', '?' + q.toString());
}
function stateToForm() {
  for (const k of Object.keys(FIELDS)) {
    if (k === 'solve') {
      for (const r of document.querySelectorAll('input[name="solve"]')) r.checked = r.value === state.solve;
      continue;
    }
    if (k === 'own') { $('#own').checked = state.own === '1'; continue; }
    const el = document.getElementById(k);
    if (el && el.type === 'checkbox') el.checked = state[k] === '1';
    else if (el) el.value = state[k];
  }
  if (state.config) $('#config-box').open = true;
  document.body.dataset.tab = state.tab;
  document.body.dataset.solve = state.solve;
  document.body.dataset.own = state.own === '1' ? '1' : '0';
  $('#ft_rank').disabled = state.ft_method === 'full';
  for (const b of document.querySelectorAll('.tabs button')) b.setAttribute('aria-selected', String(b.dataset.tab === state.tab));
}
function formToState() {
  for (const k of Object.keys(FIELDS)) {
    if (k === 'tab') continue;
    if (k === 'solve') { state.solve = document.querySelector('input[name="solve"]:checked').value; continue; }
    if (k === 'own') { state.own = $('#own').checked ? '1' : ''; continue; }
    const el = document.getElementById(k);
    if (el && el.type === 'checkbox') state[k] = el.checked ? '1' : '';
    else if (el) state[k] = el.value.trim();
  }
  document.body.dataset.solve = state.solve;
  document.body.dataset.own = state.own === '1' ? '1' : '0';
  $('#ft_rank').disabled = state.ft_method === 'full';  // full fine-tuning has no adapters
}

// ---------- API ----------
async function post(path, body) {
  const r = await fetch(path, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  const j = await r.json();
  if (!r.ok) {
    // The sentence in both languages (error, error_zh): showError picks the page's.
    const e = new Error(j.error || ('HTTP ' + r.status)); e.zh = j.error_zh; e.field = j.field; e.status = r.status; throw e;
  }
  return j;
}
function modelPart() {
  if (state.config) {
    try { return { config: JSON.parse(state.config) }; } catch (e) {
      const err = new Error('config.json: ' + e.message); err.zh = 'config.json 不是合法的 JSON：' + e.message; err.field = 'config'; throw err;
    }
  }
  return { model: state.model };
}
// The market the prices come from: chosen, else the language's (zh: China), as the CLI does.
const market = () => state.market || (lang === 'zh' ? 'cn' : 'us');
// The currency money is shown in: chosen, else the market's.
const currency = () => state.currency || (market() === 'cn' ? 'cny' : 'usd');
function trainBody(over = {}) {
  // An empty MFU lets gpuplan predict it from the planner's layout, with a range (issue 15).
  const b = { ...modelPart(), tokens: state.tokens, gpu: state.gpu, framework: state.framework, epochs: state.epochs,
              precision: state.train_precision, market: market(), currency: currency() };
  if (state.mfu) b.mfu = state.mfu;
  // Empty: the command's own default (train: 4,096, or the model's context where shorter).
  if (state.seq_len) b.seq_len = state.seq_len;
  if (state.fault_budget) b.fault_budget = state.fault_budget;
  if (state.solve === 'deadline') b.deadline = state.deadline; else b.gpus = state.gpus;
  if (state.price) b.price = state.price;
  if (state.safety_margin) b.safety_margin = state.safety_margin;
  if (state.own === '1') {
    b.compare_own = true;
    if (state.fleet) b.fleet_utilisation = Number(state.fleet);
  }
  addPins(b);
  return Object.assign(b, over);
}
function memoryBody() {
  const b = { ...modelPart(), gpu: state.gpu, gpus: state.gpus, tp: state.tp, pp: state.pp,
              zero: state.zero, micro_batch: state.micro_batch, recompute: state.recompute, framework: state.framework };
  if (state.seq_len) b.seq_len = state.seq_len;
  if (state.safety_margin) b.safety_margin = state.safety_margin;
  return b;
}
function planBody() {
  const b = { ...modelPart(), gpu: state.gpu, gpus: state.gpus, global_batch: state.global_batch,
              framework: state.framework, market: market(), currency: currency() };
  if (state.seq_len) b.seq_len = state.seq_len;
  if (state.safety_margin) b.safety_margin = state.safety_margin;
  return addPins(b);
}

// The fine-tuning tab: the keys of `gpuplan finetune` (POST /api/finetune, the same FinetuneInputs).
function finetuneBody() {
  const b = { ...modelPart(), gpu: state.gpu, method: state.ft_method, epochs: state.ft_epochs,
              precision: state.ft_precision, framework: state.framework, market: market(), currency: currency() };
  if (state.seq_len) b.seq_len = state.seq_len;  // empty: finetune's own default
  if (state.ft_rank && state.ft_method !== 'full') b.rank = state.ft_rank;
  if (state.ft_tokens) b.tokens = state.ft_tokens; else b.samples = state.ft_samples;
  if (state.ft_gpus) b.gpus = state.ft_gpus;
  if (state.ft_deadline) b.deadline = state.ft_deadline;
  if (state.price) b.price = state.price;
  return b;
}

function serveBody() {
  const b = { ...modelPart(), gpu: state.gpu, precision: state.precision, input: state.input, output: state.output, rps: state.rps,
              market: market(), currency: currency() };
  if (state.latency_target_ms) b.latency_target_ms = state.latency_target_ms;
  if (state.disaggregate === '1') b.disaggregate = true;
  if (state.engine) b.engine = state.engine;
  if (state.weight_quant) {
    // The method says what the weights are; the Weights menu gives way unless changed from its default.
    b.weight_quant = state.weight_quant;
    if (state.precision === 'fp16') delete b.precision;
  }
  return b;
}

// ---------- formatting ----------
function viewRow(view, section, key) {
  const s = view.sections.find((x) => x.key === section);
  return s && s.rows.find((r) => r.key === key);
}
const shown = (row) => (row ? row['value_' + lang] : '–');
// The prediction range beside a headline number (issue 15), in the card's <small class="range">.
function setRange(el, row) {
  const box = document.getElementById(el.id + '-range');
  if (!box) return;
  const text = row && row['range_' + lang];
  box.textContent = text || '';
  box.hidden = !text;
}
// Problems the numbers depend on, above the cards (issue 15).
function setBlocking(view) {
  const box = $('#blocking');
  const notes = (view && view.blocking) || [];
  box.hidden = notes.length === 0;
  box.replaceChildren(...notes.map((n) => { const p = document.createElement('p'); p.textContent = inFormWords(n[lang] || n.en); return p; }));
}
function setKpi(el, report, view, section, key) {
  const row = viewRow(view, section, key);
  el.textContent = shown(row);
  setRange(el, row);
  const v = report[section] && report[section][key];
  if (v !== undefined) el.dataset.value = String(v); else delete el.dataset.value;
  el.dataset.key = section + '.' + key;
}
function fmtNum(v) {
  if (!isFinite(v)) return '–';
  const a = Math.abs(v);
  if (a >= 100) return Math.round(v).toLocaleString('en-US');
  if (a >= 10) return v.toFixed(1);
  if (a >= 1) return v.toFixed(2);
  return v.toPrecision(2);
}
const esc = (s) => String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]));

// ---------- SVG charts ----------
const NS = 'http://www.w3.org/2000/svg';
function svg(w, h) {
  const s = document.createElementNS(NS, 'svg');
  s.setAttribute('viewBox', `0 0 ${w} ${h}`);
  s.setAttribute('role', 'img');
  return s;
}
function add(parent, tag, attrs, text) {
  const e = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  parent.appendChild(e);
  return e;
}
function legendHtml(items) {
  return '<div class="legend">' + items.map((i) => `<span><i style="background:${i.color}"></i>${esc(i.name)}</span>`).join('') + '</div>';
}
function niceTicks(lo, hi, n = 5) {
  const span = hi - lo || 1;
  const step0 = span / n, mag = Math.pow(10, Math.floor(Math.log10(step0)));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => span / s <= n) || mag * 10;
  const out = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + 1e-9 * step; v += step) out.push(+v.toPrecision(12));
  return out;
}
// Lines over a log2 x axis (GPU counts), linear y from 0; one series per GPU type.
function lineChart(fig, title, series, yLabel) {
  const W = 460, H = 280, L = 56, R = 26, T = 14, B = 40;
  const pts = series.flatMap((s) => s.points);
  fig.innerHTML = `<figcaption>${esc(title)}</figcaption>`;
  if (!pts.length) { fig.insertAdjacentHTML('beforeend', '<p class="note">–</p>'); return; }
  const xs = pts.map((p) => Math.log2(p[0])), ys = pts.map((p) => p[1]);
  const x0 = Math.min(...xs), x1 = Math.max(...xs), yMax = Math.max(...ys) * 1.05 || 1;
  const X = (v) => L + ((Math.log2(v) - x0) / (x1 - x0 || 1)) * (W - L - R);
  const Y = (v) => H - B - (v / yMax) * (H - T - B);
  const s = svg(W, H);
  for (const v of niceTicks(0, yMax)) {
    add(s, 'line', { x1: L, x2: W - R, y1: Y(v), y2: Y(v), stroke: '#e6e9ef' });
    add(s, 'text', { x: L - 6, y: Y(v) + 4, 'text-anchor': 'end', 'font-size': 11, fill: '#5b6577' }, fmtNum(v));
  }
  const counts = [...new Set(pts.map((p) => p[0]))].sort((a, b) => a - b);
  for (const c of counts) add(s, 'text', { x: X(c), y: H - B + 16, 'text-anchor': 'middle', 'font-size': 11, fill: '#5b6577' }, c.toLocaleString('en-US'));
  add(s, 'text', { x: (L + W - R) / 2, y: H - 6, 'text-anchor': 'middle', 'font-size': 11, fill: '#5b6577' }, t('gpu_count'));
  add(s, 'text', { x: 12, y: T + (H - T - B) / 2, 'text-anchor': 'middle', 'font-size': 11, fill: '#5b6577', transform: `rotate(-90 12 ${T + (H - T - B) / 2})` }, yLabel);
  add(s, 'line', { x1: L, x2: W - R, y1: H - B, y2: H - B, stroke: '#9aa3b2' });
  series.forEach((se) => {
    if (!se.points.length) return;
    add(s, 'polyline', { points: se.points.map((p) => `${X(p[0])},${Y(p[1])}`).join(' '), fill: 'none', stroke: se.color, 'stroke-width': 2 });
    for (const p of se.points) {
      const c = add(s, 'circle', { cx: X(p[0]), cy: Y(p[1]), r: 3, fill: se.color });
      add(c, 'title', {}, `${se.name}: ${p[0]} GPUs → ${fmtNum(p[1])}`);
    }
  });
  fig.appendChild(s);
  fig.insertAdjacentHTML('beforeend', legendHtml(series));
}
// One horizontal stacked bar (segments in bytes or seconds) with optional reference lines.
function stackedBar(fig, title, segments, total, refs, unit) {
  const W = 720, H = 150, L = 10, R = 10, T = 28, BAR = 46;
  fig.innerHTML = `<figcaption>${esc(title)}</figcaption>`;
  const s = svg(W, H);
  const sum = segments.reduce((a, x) => a + x.value, 0);
  const max = Math.max(sum, total || 0, ...refs.map((r) => r.value)) * 1.02 || 1;
  const X = (v) => L + (v / max) * (W - L - R);
  add(s, 'rect', { x: L, y: T, width: W - L - R, height: BAR, fill: '#f1f3f7' });
  let acc = 0;
  for (const seg of segments) {
    if (seg.value <= 0) continue;
    const r = add(s, 'rect', { x: X(acc), y: T, width: Math.max(0.5, X(acc + seg.value) - X(acc)), height: BAR, fill: seg.color });
    add(r, 'title', {}, `${seg.name}: ${fmtNum(seg.value / unit.div)} ${unit.name}`);
    acc += seg.value;
  }
  for (const ref of refs) {
    add(s, 'line', { x1: X(ref.value), x2: X(ref.value), y1: T - 8, y2: T + BAR + 8, stroke: ref.color, 'stroke-width': 2, 'stroke-dasharray': ref.dash || '' });
    add(s, 'text', { x: Math.min(X(ref.value), W - R), y: ref.above ? T - 12 : T + BAR + 22, 'text-anchor': X(ref.value) > W - 120 ? 'end' : 'middle', 'font-size': 12, fill: ref.color },
        `${ref.name} ${fmtNum(ref.value / unit.div)} ${unit.name}`);
  }
  const ticks = niceTicks(0, max / unit.div, 6);
  for (const v of ticks) add(s, 'text', { x: X(v * unit.div), y: H - 6, 'text-anchor': 'middle', 'font-size': 10, fill: '#9aa3b2' }, fmtNum(v));
  fig.appendChild(s);
  fig.insertAdjacentHTML('beforeend', legendHtml(segments.filter((x) => x.value > 0).map((x) => ({ ...x, name: `${x.name} ${fmtNum(x.value / unit.div)} ${unit.name}` }))));
}

// ---------- report table ----------
function renderReport(view) {
  $('#report-title').textContent = view['title_' + lang] || t('report');
  let h = '<div class="table-wrap"><table>';
  for (const s of view.sections) {
    if (s.columns && s.columns.length && s.records.length) continue;  // tables (rankings) are drawn elsewhere
    if (!s.rows.length) continue;
    h += `<tr class="section"><th colspan="2">${esc(s[lang] || s.en)}</th></tr>`;
    for (const r of s.rows) h += `<tr data-key="${esc(s.key + '.' + r.key)}"><td>${esc(r[lang] || r.en)}</td><td class="num">${esc(r['value_' + lang])}</td></tr>`;
  }
  h += '</table></div>';
  const notes = (list, title) => list.length ? `<h3>${t(title)}</h3><ul class="notes">${list.map((n) => `<li>${esc(inFormWords(n[lang] || n.en))}</li>`).join('')}</ul>` : '';
  h += notes(view.warnings, 'warnings') + notes(view.assumptions, 'assumptions');
  $('#report').innerHTML = h;
}

// ---------- views ----------
let shownError = null;  // re-shown in the other language when the page's language changes
// The form field a CLI flag in an API sentence stands for (--latency-target-ms is
// the field #latency_target_ms), named by its label as the page shows it; null
// when the page has no such field.
function fieldLabel(flag) {
  const key = flag.replace(/-/g, '_');
  const id = (FIELD_OF_KEY[state.tab] || {})[key] || key;
  const el = document.getElementById(id);
  const label = el && el.closest('label');
  if (!label) return null;
  const span = label.querySelector('span[data-i18n]');
  const text = span ? span.textContent : (label.firstChild && label.firstChild.nodeType === Node.TEXT_NODE ? label.firstChild.textContent : '');
  // Without the parenthesised hint ("TPOT target, ms (empty: 50)").
  return text.replace(/\s*[（(][^（()）]*[）)]\s*$/, '').trim() || null;
}
// The API's sentence (the CLI's, naming its flags; or naming the request key
// `field` it starts with) in the form's words.
function inFormWords(msg, field) {
  const quote = (l) => (lang === 'zh' ? `「${l}」` : `“${l}”`);
  let text = String(msg);
  const own = field && fieldLabel(field.replace(/_/g, '-'));
  if (own && text.startsWith(field) && /^[ :：]/.test(text.slice(field.length))) text = quote(own) + text.slice(field.length);
  return text.replace(/--([a-z][a-z0-9-]*)/g, (m, flag) => {
    const l = fieldLabel(flag);
    return l ? quote(l) : m;
  });
}
// An error replaces the results: the numbers under it belonged to the previous
// inputs (body.failed hides them until an answer comes back).
function showError(e) {
  const box = $('#error');
  shownError = e || null;
  for (const el of document.querySelectorAll('.invalid')) el.classList.remove('invalid');
  document.body.classList.toggle('failed', !!e);
  if (!e) { box.hidden = true; box.replaceChildren(); return; }
  box.hidden = false;
  const msg = document.createElement('p');
  msg.className = 'message';
  msg.textContent = inFormWords((lang === 'zh' && e.zh) || e.message, e.field);
  const note = document.createElement('p');
  note.className = 'note';
  note.textContent = t('error_stale');
  box.replaceChildren(msg, note);
  const id = e.field && ((FIELD_OF_KEY[state.tab] || {})[e.field] || e.field);
  const el = id && document.getElementById(id);
  if (el) el.classList.add('invalid');
}

function renderTrain() {
  const res = last.train;
  if (!res) return;
  const { report, view } = res;
  setBlocking(view);
  setKpi($('#out-time'), report, view, 'time', 'wall_clock_s');
  setKpi($('#out-gpus'), report, view, 'time', 'gpus');
  setKpi($('#out-gpu-hours'), report, view, 'gpu_hours', 'total_gpu_hours');
  // One cost object (schema 3): every amount in cost.currency; a price range adds total_at_price_high.
  const cost = report.cost || {};
  const out = $('#out-cost');
  if (typeof cost.total === 'number' && typeof cost.total_at_price_high === 'number') {
    out.textContent = `${shown(viewRow(view, 'cost', 'total'))} – ${shown(viewRow(view, 'cost', 'total_at_price_high'))}`;
    out.dataset.value = String(cost.total); out.dataset.valueHigh = String(cost.total_at_price_high); out.dataset.key = 'cost.total';
    setRange(out, viewRow(view, 'cost', 'total'));
  } else if (typeof cost.total === 'number') {
    setKpi(out, report, view, 'cost', 'total');
    delete out.dataset.valueHigh;
  } else { out.textContent = '–'; delete out.dataset.value; setRange(out, null); }
  if (cost.currency) out.dataset.currency = cost.currency.toLowerCase(); else delete out.dataset.currency;
  renderReport(view);
  renderRent();
  renderSweep();
  renderOwn();
}

// A table section of a report (its records) as the CLI prints it, in the page's language:
// columns from the rows' labels, cells the formatted values, data-value the JSON number.
function recordsTable(viewSection, jsonRecords, cellText = (r) => r['value_' + lang]) {
  if (!viewSection || !viewSection.records.length) return '';
  const heads = viewSection.records[0].map((r) => r[lang] || r.en);
  let h = '<div class="table-wrap"><table><thead><tr>' + heads.map((c) => `<th>${esc(c)}</th>`).join('') + '</tr></thead><tbody>';
  viewSection.records.forEach((rec, i) => {
    const j = (jsonRecords || [])[i] || {};
    h += '<tr>' + rec.map((r) => {
      const v = j[r.key];
      const num = typeof v === 'number';
      return `<td class="${num ? 'num' : ''}" data-key="${esc(r.key)}"${num ? ` data-value="${v}"` : ''}>${esc(cellText(r))}</td>`;
    }).join('') + '</tr>';
  });
  return h + '</tbody></table></div>';
}

// On-demand, reserved and spot side by side (money and days), in the market's currency.
function renderRent() {
  const res = last.train;
  const box = $('#rent-table');
  const sec = res && res.view.sections.find((x) => x.key === 'rent_options');
  $('#rent-box').hidden = !sec || !sec.records.length;
  box.innerHTML = recordsTable(sec, res && res.report.rent_options, (r) => (r.key === 'way' ? t('way_' + r.value_en) : r['value_' + lang]));
  for (const [i, tr] of [...box.querySelectorAll('tbody tr')].entries()) tr.dataset.way = res.report.rent_options[i].way;
}

// The cost row of a finetune report's time section (its key names the currency, or not).
const FT_SEGMENTS = [['weights_bytes', 'seg_weights'], ['gradients_bytes', 'seg_gradients'], ['optimizer_bytes', 'seg_optimizer'],
  ['activations_bytes', 'seg_activations'], ['logits_bytes', 'seg_logits'], ['overhead_bytes', 'seg_overhead']];
function renderFinetune() {
  const res = last.finetune;
  if (!res) return;
  const { report, view } = res;
  const m = report.memory;
  setKpi($('#out-ft-memory'), report, view, 'memory', 'peak_bytes');
  const fits = $('#out-ft-fits');
  const cap = `${t('capacity')} ${shown(viewRow(view, 'memory', 'capacity_bytes'))}`;
  fits.textContent = `${m.fits ? t('fits') : t('no_fit')}${lang === 'zh' ? `（${cap}）` : ` (${cap})`}`;
  fits.className = m.fits ? 'fits' : 'nofit';
  fits.dataset.fits = String(m.fits);
  const gpus = $('#out-ft-gpus');
  gpus.textContent = lang === 'zh' ? `${report.inputs.gpus} 卡` : `${report.inputs.gpus} GPUs`;
  gpus.dataset.value = String(report.inputs.gpus);
  $('#out-ft-smallest').textContent = `${t('ft_smallest')}${lang === 'zh' ? '：' : ': '}${shown(viewRow(view, 'time', 'smallest_gpus'))}`;
  setKpi($('#out-ft-time'), report, view, 'time', 'wall_clock_s');
  // The cost object (schema 3): cost.total in cost.currency.
  if (report.cost && typeof report.cost.total === 'number') setKpi($('#out-ft-cost'), report, view, 'cost', 'total');
  else $('#out-ft-cost').textContent = '–';
  const GiB = 1024 ** 3;
  stackedBar($('#chart-ft-memory'), `${t('ft_mem_title')} — ${m.fits ? t('fits') : t('no_fit')}`,
    FT_SEGMENTS.map(([k, l], i) => ({ name: t(l), value: m[k] || 0, color: COLORS[i] })), m.capacity_bytes,
    [{ name: t('capacity'), value: m.capacity_bytes, color: '#14213d', above: true },
     { name: t('usable'), value: m.peak_bytes + m.headroom_bytes, color: '#c2372c', dash: '4 3' }],
    { div: GiB, name: 'GiB' });
  // A job that does not fit is priced nowhere: the single changes that would make it fit instead.
  const alt = view.sections.find((x) => x.key === 'alternatives');
  $('#ft-alternatives-box').hidden = !alt;
  if (alt) $('#ft-alternatives-title').textContent = alt[lang] || alt.en;
  $('#ft-alternatives').innerHTML = recordsTable(alt, report.alternatives);
  const cheap = view.sections.find((x) => x.key === 'cheapest');
  $('#ft-cheapest-box').hidden = !cheap;
  if (cheap) $('#ft-cheapest-title').textContent = cheap[lang] || cheap.en;
  $('#ft-cheapest').innerHTML = recordsTable(cheap, report.cheapest);
  renderReport(view);
}

// Rent or own: the run's cost (millions) against the owned fleet's utilisation, from the report's curve.
function renderOwn() {
  const fig = $('#chart-own');
  const res = last.train;
  const curve = res && res.report.own_vs_utilisation;
  if (!curve || !curve.length) { fig.innerHTML = ''; delete fig.dataset.currency; return; }
  const cur = curve[0].currency.toLowerCase();
  const W = 720, H = 300, L = 64, R = 130, T = 14, B = 40;
  const names = ['owned', 'on_demand', 'reserved', 'spot'].filter((n) => n in curve[0]);
  // A log axis that holds every point of every series: the owned cost at low
  // utilisation runs to tens of times the rented one (a linear axis clipped it).
  const values = curve.flatMap((p) => names.map((n) => p[n] / 1e6)).filter((v) => v > 0 && isFinite(v));
  const lo = Math.pow(10, Math.floor(Math.log10(Math.min(...values))));
  const hi = Math.pow(10, Math.ceil(Math.log10(Math.max(...values))));
  const X = (u) => L + u * (W - L - R);
  const Y = (v) => H - B - (Math.log10(Math.max(v, lo) / lo) / Math.log10(hi / lo || 10)) * (H - T - B);
  fig.innerHTML = `<figcaption>${esc(t('own_title'))} (${esc(t('chart_cost_' + cur))})</figcaption>`;
  fig.dataset.currency = cur;
  const s = svg(W, H);
  s.dataset.yLow = String(lo);
  s.dataset.yHigh = String(hi);
  const ticks = [];
  for (let k = Math.round(Math.log10(lo)); k <= Math.round(Math.log10(hi)); ++k) {
    for (const m of [1, 2, 5]) { const v = m * Math.pow(10, k); if (v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9)) ticks.push(+v.toPrecision(6)); }
  }
  for (const v of ticks) {
    add(s, 'line', { x1: L, x2: W - R, y1: Y(v), y2: Y(v), stroke: '#e6e9ef' });
    add(s, 'text', { x: L - 6, y: Y(v) + 4, 'text-anchor': 'end', 'font-size': 11, fill: '#5b6577' }, fmtNum(v).replace(/\.0$/, ''));
  }
  for (const u of [0, 0.2, 0.4, 0.6, 0.8, 1]) add(s, 'text', { x: X(u), y: H - B + 16, 'text-anchor': 'middle', 'font-size': 11, fill: '#5b6577' }, `${Math.round(u * 100)}%`);
  add(s, 'text', { x: (L + W - R) / 2, y: H - 6, 'text-anchor': 'middle', 'font-size': 11, fill: '#5b6577' }, t('own_x'));
  add(s, 'text', { x: 12, y: T + (H - T - B) / 2, 'text-anchor': 'middle', 'font-size': 11, fill: '#5b6577', transform: `rotate(-90 12 ${T + (H - T - B) / 2})` }, `${t('chart_cost_' + cur)}${lang === 'zh' ? '，' : ', '}${t('log_axis')}`);
  add(s, 'line', { x1: L, x2: W - R, y1: H - B, y2: H - B, stroke: '#9aa3b2' });
  const legend = [];
  // Each series' name at its right end, moved apart where two ends lie closer than a line of text.
  const ends = names.map((n) => ({ n, y: Y(curve[curve.length - 1][n] / 1e6) + 4 })).sort((a, b) => a.y - b.y);
  for (let i = 1; i < ends.length; ++i) ends[i].y = Math.max(ends[i].y, ends[i - 1].y + 13);
  const endY = Object.fromEntries(ends.map((e) => [e.n, e.y]));
  names.forEach((n, i) => {
    const color = COLORS[i % COLORS.length];
    const pts = curve.map((p) => [p.utilisation, p[n] / 1e6]);
    const line = add(s, 'polyline', { points: pts.map((p) => `${X(p[0])},${Y(p[1])}`).join(' '), fill: 'none', stroke: color, 'stroke-width': 2,
                                      'stroke-dasharray': n === 'owned' ? '' : '5 3', 'data-series': n });
    add(line, 'title', {}, t('own_' + n));
    if (n === 'owned') for (const p of pts) add(s, 'circle', { cx: X(p[0]), cy: Y(p[1]), r: 2.5, fill: color, 'data-value': String(p[1]) });
    add(s, 'text', { x: W - R + 6, y: endY[n], 'font-size': 11, fill: color }, t('own_' + n));
    legend.push({ name: t('own_' + n), color });
  });
  // The break-even against on-demand, where the report has one.
  const row = viewRow(res.view, 'rent_vs_own', 'break_even_utilisation_vs_on_demand');
  const be = res.report.rent_vs_own && res.report.rent_vs_own.break_even_utilisation_vs_on_demand;
  if (typeof be === 'number' && be > 0) {
    add(s, 'line', { x1: X(be), x2: X(be), y1: T, y2: H - B, stroke: '#c2372c', 'stroke-dasharray': '2 2', 'data-break-even': String(be) });
    add(s, 'text', { x: X(be) + 4, y: T + 12, 'font-size': 11, fill: '#c2372c' }, `${t('own_break_even')} ${shown(row)}`);
  }
  fig.appendChild(s);
  fig.insertAdjacentHTML('beforeend', legendHtml(legend));
}

function renderSweep() {
  const sw = last.sweep;
  if (!sw) return;
  const series = sw.map((s, i) => ({ name: s.name, color: COLORS[i % COLORS.length], points: s.points }));
  lineChart($('#chart-time'), t('chart_days'), series.map((s) => ({ ...s, points: s.points.map((p) => [p.gpus, p.days]) })), t('chart_days'));
  // Costs in the chosen currency (every report carries both: one priced, one converted).
  const label = t('chart_cost_' + sw.currency);
  lineChart($('#chart-cost'), label, series.map((s) => ({ ...s, points: s.points.filter((p) => p.cost !== null).map((p) => [p.gpus, p.cost / 1e6]) })), label);
  $('#chart-cost').dataset.currency = sw.currency;
  $('#chart-time').closest('.chart-card').classList.remove('stale');
}

async function runSweep(my, report) {
  const base = Math.max(8, report.time ? report.time.gpus : Number(state.gpus) || 1024);
  const counts = [...new Set([1 / 8, 1 / 4, 1 / 2, 1, 2, 4, 8].map((f) => Math.max(8, Math.round((base * f) / 8) * 8)))];
  const types = [];
  const seen = new Set();
  for (const g of [state.gpu, ...SWEEP_GPUS]) {
    const spec = catalog.gpus.find((x) => x.id === g || x.aliases.includes(g));
    if (spec && !seen.has(spec.id) && spec.peak_bf16_flop_per_s) { seen.add(spec.id); types.push(spec); }
    if (types.length === 4) break;
  }
  const cur = currency();
  // The curves take 20–30 requests: say how far they are, on the card and to
  // assistive technology (aria-busy), until the last point is in.
  const card = $('#chart-time').closest('.chart-card');
  const status = $('#sweep-status');
  const total = types.length * counts.length;
  let done = 0, failed = 0;
  const progress = () => {
    if (my !== seq) return;
    card.dataset.sweep = 'computing';
    card.setAttribute('aria-busy', 'true');
    status.hidden = false;
    status.textContent = tf('sweep_progress', { done, total });
    status.dataset.done = String(done);
    status.dataset.total = String(total);
  };
  progress();
  const jobs = types.map(async (g) => {
    // The chosen GPU keeps a typed price (a range at its midpoint); the others take their market's listing.
    const own = g.id === types[0].id && state.price;
    const points = await Promise.all(counts.map(async (n) => {
      try {
        // The sweep compares the planner's own layouts at every count: the pins stay with the chosen run.
        const unpinned = Object.fromEntries(Object.keys(PIN_FIELDS).map((k) => [k, undefined]));
        const r = await post('/api/train', trainBody({ gpu: g.id, gpus: n, deadline: undefined, price: own ? state.price : undefined, compare_own: undefined,
                                                       fleet_utilisation: undefined, ...unpinned }));
        // The total in the chosen currency: the cost object's own, or its conversion.
        const c = !r.cost ? {} : r.cost.currency.toLowerCase() === cur ? r.cost : (r.cost.converted || {});
        const lo = c.total ?? null;
        const hi = c.total_at_price_high ?? lo;
        return { gpus: n, days: r.time.wall_clock_s / 86400, cost: lo === null ? null : (lo + hi) / 2 };
      } catch (e) { ++failed; return null; } finally { ++done; progress(); }
    }));
    return { name: g.id, points: points.filter(Boolean) };
  });
  const sweep = await Promise.all(jobs);
  if (my !== seq) return;
  sweep.currency = cur;
  last.sweep = sweep;
  renderSweep();
  card.dataset.sweep = 'done';
  card.setAttribute('aria-busy', 'false');
  status.hidden = failed === 0;
  status.textContent = failed ? tf('sweep_failed', { n: failed, total }) : '';
}

const MEM_SEGMENTS = [['weights_bytes', 'seg_weights'], ['gradients_bytes', 'seg_gradients'], ['optimizer_bytes', 'seg_optimizer'],
  ['activations_bytes', 'seg_activations'], ['logits_bytes', 'seg_logits'], ['comm_buffers_bytes', 'seg_comm'],
  ['zero3_gathered_bytes', 'seg_zero3'], ['cuda_context_bytes', 'seg_context'], ['fragmentation_bytes', 'seg_frag']];
function renderMemory() {
  const res = last.memory;
  if (!res) return;
  const m = res.report.memory;
  const segs = MEM_SEGMENTS.map(([k, l], i) => ({ name: t(l), value: m[k] || 0, color: COLORS[i] }));
  const GiB = 1024 ** 3;
  stackedBar($('#chart-memory'), `${t('mem_title')} — ${m.fits ? t('fits') : t('no_fit')}`, segs, m.capacity_bytes,
    [{ name: t('capacity'), value: m.capacity_bytes, color: '#14213d', above: true },
     { name: t('usable'), value: m.capacity_bytes - m.safety_margin_bytes, color: '#c2372c', dash: '4 3' }],
    { div: GiB, name: 'GiB' });
  $('#chart-memory').dataset.fits = String(m.fits);
  renderReport(res.view);
}

const STEP_SEGMENTS = [['gemm_s', 'st_gemm'], ['attention_s', 'st_attention'], ['elementwise_s', 'st_elementwise'],
  ['recompute_s', 'st_recompute'], ['tp_comm_s', 'st_tp'], ['cp_comm_s', 'st_cp'], ['ep_comm_s', 'st_ep'], ['pp_comm_s', 'st_pp'],
  ['dp_comm_s', 'st_dp'], ['bubble_s', 'st_bubble'], ['optimizer_s', 'st_optimizer']];
// A layout's degrees in words, as the ranking's rows show them.
function layoutWords(r) {
  return `tp${r.tp} pp${r.pp} dp${r.dp}${r.cp > 1 ? ' cp' + r.cp : ''}${r.ep > 1 ? ' ep' + r.ep : ''}${r.vp > 1 ? ' vp' + r.vp : ''}`;
}
function renderPlan() {
  const res = last.plan;
  const box = $('#plan-table');
  if (!res) return;
  if (res.missing) { box.innerHTML = `<p class="note">${t('plan_missing')}</p>`; $('#chart-step').innerHTML = ''; return; }
  const { report, view } = res;
  let h = '';
  // One group per GPU type and count (JSON schema v2: groups[].ranking).
  (report.groups || []).forEach((g, gi) => {
    const rows = g.ranking || [];
    h += `<h3>${esc(g.gpu)} × ${g.gpus}</h3><div class="table-wrap"><table><thead><tr>` +
      ['rank', 'layout_col', 'step_s', 'mfu_col', 'mem_col', 'comm_col', 'bubble_col', 'tok_col'].map((c) => `<th>${t(c)}</th>`).join('') + '</tr></thead><tbody>';
    for (const r of rows) {
      const lay = `${layoutWords(r)} mb${r.micro_batch} ZeRO-${r.zero} ${t('rc_' + r.recompute)}`;
      const picked = res.chosenGroup === gi && res.chosenRank === r.rank;
      h += `<tr class="pick${picked ? ' chosen' : ''}" data-group="${gi}" data-rank="${r.rank}" data-layout='${esc(JSON.stringify({ tp: r.tp, pp: r.pp, dp: r.dp, cp: r.cp, ep: r.ep, vp: r.vp, micro_batch: r.micro_batch, zero: r.zero, recompute: r.recompute }))}'>` +
        `<td>${r.rank}</td><td>${esc(lay)}</td><td class="num">${r.step_s.toFixed(2)} s</td><td class="num">${(r.mfu * 100).toFixed(1)}%</td>` +
        `<td class="num">${(r.memory_bytes / 1024 ** 3).toFixed(1)} GiB</td><td class="num">${(r.comm_share * 100).toFixed(0)}%</td>` +
        `<td class="num">${(r.bubble_share * 100).toFixed(0)}%</td><td class="num">${fmtNum(r.tokens_per_s_per_gpu)}</td></tr>`;
    }
    h += '</tbody></table></div>';
  });
  box.innerHTML = h + `<p class="note">${t('plan_pick')}</p>`;
  if (!res.chosenRank) $('#export-status').hidden = true;  // new inputs: the last export's note is about the old ranking
  const win = (report.groups || []).find((g) => g.winner);
  const chosen = res.chosen || (win && win.winner);
  if (chosen) {
    stackedBar($('#chart-step'), `${t('step_title')}: ${layoutWords(chosen)} — ${chosen.step_s.toFixed(2)} s`,
      STEP_SEGMENTS.map(([k, l], i) => ({ name: t(l), value: chosen[k] || 0, color: COLORS[i % COLORS.length] })), 0, [], { div: 1, name: 's' });
  }
  renderReport(view);
}

function renderServe() {
  const res = last.serve;
  if (!res) return;
  const { report, view } = res;
  setKpi($('#out-serve-gpus'), report, view, 'deployment', 'gpus');
  setKpi($('#out-serve-layout'), report, view, 'deployment', 'layout');
  setKpi($('#out-serve-tpot'), report, view, 'latency', 'tpot_s');
  setKpi($('#out-serve-ttft'), report, view, 'latency', 'ttft_s');
  const d = report.deployment;
  const sec = view.sections.find((x) => x.key === 'layouts');
  const cols = ['TP', 'PP', 'EP', t('dp_attn_col'), t('per_replica_col'), t('batch_col'), t('tpot_col'), t('replicas_col'), t('gpus_col'), t('feasible_col'), t('note_col')];
  let h = '<div class="table-wrap"><table><thead><tr>' + cols.map((c) => `<th>${esc(c)}</th>`).join('') + '</tr></thead><tbody>';
  (report.layouts || []).forEach((r, i) => {
    const v = sec ? sec.records[i] : [];
    const cell = (key) => { const x = v.find((y) => y.key === key); return x ? x['value_' + lang] : ''; };
    const chosen = r.feasible && r.tp === d.tp && r.pp === d.pp && r.ep === d.ep && r.dp_attention === d.dp_attention;
    h += `<tr class="${chosen ? 'chosen-layout' : ''}" data-feasible="${r.feasible}"><td>${r.tp}</td><td>${r.pp}</td><td>${r.ep}</td><td>${r.dp_attention}</td>` +
      `<td class="num">${r.gpus_per_replica}</td><td class="num">${r.feasible ? esc(cell('batch')) : '–'}</td>` +
      `<td class="num">${r.feasible ? esc(cell('tpot_s')) : '–'}</td><td class="num">${r.feasible ? esc(cell('replicas')) : '–'}</td>` +
      `<td class="num">${r.feasible ? esc(cell('gpus')) : '–'}</td><td>${r.feasible ? t('yes') : t('no')}</td><td class="note">${esc(cell('note'))}</td></tr>`;
  });
  $('#serve-table').innerHTML = h + '</tbody></table></div>';
  renderReport(view);
}

// The launch configuration of the chosen row (the best when none was clicked),
// as `gpuplan plan ... --export FORMAT --rank N` prints it, saved as a file.
async function exportConfig() {
  const status = $('#export-status');
  // A clicked row is exported as asked; with none clicked, the best layout the format's reader can hold (as the CLI without --rank).
  const body = { ...planBody() };
  if (last.plan && last.plan.chosenRank) body.rank = last.plan.chosenRank;
  if ($('#export_to').value) body.export = $('#export_to').value;
  status.hidden = true;
  try {
    const r = await post('/api/plan/export', body);
    const a = document.createElement('a');
    a.href = URL.createObjectURL(new Blob([r.text], { type: r.media_type }));
    a.download = r.file_name;
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 10000);
    status.textContent = [tf('export_done', { file: r.file_name, format: r.format, rank: r.rank, runner: r.runner }),
      ...r.notes.map((n) => n[lang] || n.en)].join(' ');
    if (r.launch) {
      // The command that starts the file on the planned nodes (placeholders in capitals).
      const code = document.createElement('code');
      code.className = 'launch';
      code.textContent = r.launch;
      status.append(document.createElement('br'), t('export_launch'), ' ', code);
    }
    status.classList.remove('failed');
    status.dataset.file = r.file_name;
  } catch (e) {
    // The export's own refusal, beside its button: the ranking above stays valid.
    status.textContent = inFormWords((lang === 'zh' && e.zh) || e.message, e.field);
    status.classList.add('failed');
    delete status.dataset.file;
  }
  status.hidden = false;
}

// ---------- update loop ----------
async function update() {
  const my = ++seq;
  writeUrl();
  document.body.classList.add('busy');
  try {
    if (state.tab === 'train') {
      const res = await post('/api/train/view', trainBody());
      if (my !== seq) return;
      last.train = res; last.sweep = null;
      $('#chart-time').closest('.chart-card').classList.add('stale');  // the previous inputs' curves until the new sweep is drawn
      renderTrain();
      runSweep(my, res.report);
    } else if (state.tab === 'finetune') {
      const res = await post('/api/finetune/view', finetuneBody());
      if (my !== seq) return;
      last.finetune = res;
      renderFinetune();
    } else if (state.tab === 'serve') {
      const res = await post('/api/infer/view', serveBody());
      if (my !== seq) return;
      last.serve = res;
      renderServe();
    } else if (state.tab === 'memory') {
      const res = await post('/api/memory/view', memoryBody());
      if (my !== seq) return;
      last.memory = res;
      renderMemory();
    } else {
      let res;
      try { res = await post('/api/plan/view', planBody()); } catch (e) {
        if (e.status === 404) res = { missing: true }; else throw e;
      }
      if (my !== seq) return;
      last.plan = res;
      renderPlan();
    }
    showError(null);  // an answer for these inputs: the results are theirs again
  } catch (e) {
    if (my === seq) showError(e);
  } finally {
    if (my === seq) document.body.classList.remove('busy');
  }
}
let timer = null;
function schedule() { clearTimeout(timer); timer = setTimeout(update, 250); }

function applyLang() {
  document.documentElement.lang = lang === 'zh' ? 'zh-CN' : 'en';
  for (const el of document.querySelectorAll('[data-i18n]')) el.textContent = t(el.dataset.i18n);
  $('#lang-toggle').textContent = lang === 'zh' ? 'English' : '中文';
  if (shownError) showError(shownError);
  if (state.tab === 'train') renderTrain();
  else if (state.tab === 'memory') renderMemory();
  else if (state.tab === 'serve') renderServe();
  else if (state.tab === 'finetune') renderFinetune();
  else renderPlan();
}

function fillMenus() {
  const fmtP = (p) => (p >= 1e9 ? (p / 1e9).toFixed(p >= 1e11 ? 0 : 1) + 'B' : (p / 1e6).toFixed(0) + 'M');
  $('#model').innerHTML = catalog.models.map((m) => `<option value="${esc(m.id)}">${esc(m.name)} (${fmtP(m.params_total)}${m.moe ? ', MoE ' + fmtP(m.params_active) + ' active' : ''})</option>`).join('');
  $('#gpu').innerHTML = catalog.gpus.map((g) => `<option value="${esc(g.id)}">${esc(g.name)}</option>`).join('');
  // Every version of every profile (generic first): what the planner may search and its defaults.
  const fws = [...catalog.frameworks].sort((a, b) => (a.id === 'generic' ? -1 : b.id === 'generic' ? 1 : a.id.localeCompare(b.id)));
  $('#framework').innerHTML = fws.flatMap((f) => f.versions.map((v) =>
    `<option value="${esc(v.label)}">${esc(f.id === 'generic' ? t('framework_generic') : f.name + ' ' + v.version)}</option>`)).join('');
  // Serving engines: the unnamed default (vLLM's rule with --memory-utilization), then every profile version.
  $('#engine').innerHTML = `<option value="">${esc(t('engine_default'))}</option>` + catalog.engines.flatMap((e) => e.versions.map((v) =>
    `<option value="${esc(v.label)}">${esc(e.name + ' ' + v.version)}</option>`)).join('');
  // The URL may hold an alias (h100): show it selected as its catalog entry.
  const gpu = catalog.gpus.find((g) => g.id === state.gpu || g.aliases.includes(state.gpu));
  if (gpu) state.gpu = gpu.id;
  const model = catalog.models.find((m) => m.id === state.model || m.aliases.includes(state.model));
  if (model) state.model = model.id;
}

async function init() {
  readUrl();
  const [models, gpus, frameworks, engines] = await Promise.all([fetch('/api/models').then((r) => r.json()), fetch('/api/gpus').then((r) => r.json()),
    fetch('/api/frameworks').then((r) => r.json()), fetch('/api/engines').then((r) => r.json())]);
  catalog = { models: models.models, gpus: gpus.gpus, frameworks: frameworks.frameworks, engines: engines.engines };
  fillMenus();
  stateToForm();
  applyLang();
  $('#form').addEventListener('submit', (e) => e.preventDefault());
  $('#form').addEventListener('input', () => { formToState(); schedule(); });
  $('#form').addEventListener('change', () => { formToState(); schedule(); });
  $('#config-file').addEventListener('change', async (e) => {
    const file = e.target.files[0];
    if (!file) return;
    $('#config').value = await file.text();
    e.target.value = '';
    formToState();
    schedule();
  });
  for (const b of document.querySelectorAll('.tabs button')) {
    b.addEventListener('click', () => { state.tab = b.dataset.tab; stateToForm(); update(); });
  }
  $('#lang-toggle').addEventListener('click', () => {
    lang = lang === 'zh' ? 'en' : 'zh';
    localStorage.setItem('gpuplan.lang', lang);
    applyLang();
    // Unless chosen, the market (and so the prices) follows the language: ask again.
    if (!state.market && state.tab !== 'memory') update();
  });
  $('#copy-link').addEventListener('click', async () => {
    try { await navigator.clipboard.writeText(location.href); } catch (e) { /* not allowed: the address bar has it */ }
    $('#copy-link').textContent = t('copied');
    setTimeout(() => { $('#copy-link').textContent = t('copy_link'); }, 1500);
  });
  $('#plan-table').addEventListener('click', async (e) => {
    const tr = e.target.closest('tr.pick');
    if (!tr) return;
    for (const r of document.querySelectorAll('tr.chosen')) r.classList.remove('chosen');
    tr.classList.add('chosen');
    const lay = JSON.parse(tr.dataset.layout);
    if (last.plan) { last.plan.chosenRank = Number(tr.dataset.rank); last.plan.chosenGroup = Number(tr.dataset.group); }
    try {
      const one = await post('/api/plan', { ...planBody(), ...lay, top: 1 });
      const win = (one.groups || []).find((g) => g.winner);
      if (win && last.plan) { last.plan.chosen = win.winner; renderPlan(); }
    } catch (err) { showError(err); }
  });
  $('#export-btn').addEventListener('click', exportConfig);
  await update();
  document.body.dataset.ready = '1';
}

init().catch((e) => showError(e));
