'use strict';
/**
 * A mail sink on loopback: an SMTP server that takes every message and keeps it (nothing is
 * delivered). The AI agent example sends its approval requests with n8n's Send Email node (the human
 * review of a tool call); `npm start` and the tests have no mail server, so they point the example's
 * SMTP credential here and read the approve and decline links from `messages`.
 *
 * Speaks the part of SMTP nodemailer uses without TLS or authentication (EHLO, MAIL, RCPT, DATA,
 * RSET, NOOP, QUIT). Each message: {from, to, subject, html, links} with the body decoded
 * (quoted-printable or base64) and the links its `href`s name.
 */
const net = require('node:net');

function decodeBody(headers, body) {
	const encoding = /^content-transfer-encoding:\s*(\S+)/im.exec(headers)?.[1]?.toLowerCase();
	if (encoding === 'base64')
		return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
	if (encoding === 'quoted-printable') {
		const bytes = body
			.replace(/=\r?\n/g, '')
			.replace(/=([0-9A-F]{2})/gi, (_, hex) => String.fromCharCode(parseInt(hex, 16)));
		return Buffer.from(bytes, 'latin1').toString('utf8');
	}
	return body;
}

/** A message as DATA carried it (dot-stuffing removed): its subject, decoded body and links. */
function readMessage(envelope, data) {
	const split = data.search(/\r?\n\r?\n/);
	const headers = split === -1 ? data : data.slice(0, split);
	const body = split === -1 ? '' : data.slice(split).replace(/^\r?\n\r?\n/, '');
	const html = decodeBody(headers, body);
	const links = [...html.matchAll(/href="([^"]+)"/g)].map((match) =>
		match[1].replace(/&amp;/g, '&'),
	);
	return {
		...envelope,
		subject: /^subject:\s*(.*)$/im.exec(headers)?.[1]?.trim() ?? '',
		html,
		links,
	};
}

/**
 * Starts the sink: options host (127.0.0.1), port (0 = ephemeral), onMessage (called with each
 * message). Resolves to {host, port, messages, close()}.
 */
function startMailSink({ host = '127.0.0.1', port = 0, onMessage } = {}) {
	const messages = [];
	const sockets = new Set();
	const server = net.createServer((socket) => {
		sockets.add(socket);
		socket.on('close', () => sockets.delete(socket));
		socket.on('error', () => {});
		let buffer = '';
		let data;
		let envelope = { from: '', to: [] };
		const reply = (line) => socket.write(`${line}\r\n`);
		reply('220 mail-sink ESMTP');
		socket.on('data', (chunk) => {
			buffer += chunk.toString('latin1');
			let end;
			while ((end = buffer.indexOf('\r\n')) !== -1) {
				const line = buffer.slice(0, end);
				buffer = buffer.slice(end + 2);
				if (data !== undefined) {
					if (line !== '.') {
						data.push(line.startsWith('..') ? line.slice(1) : line);
						continue;
					}
					const message = readMessage(
						envelope,
						Buffer.from(data.join('\r\n'), 'latin1').toString('utf8'),
					);
					messages.push(message);
					onMessage?.(message);
					data = undefined;
					envelope = { from: '', to: [] };
					reply('250 OK: kept');
					continue;
				}
				const command = line.slice(0, 4).toUpperCase();
				if (command === 'EHLO') reply('250-mail-sink\r\n250 8BITMIME');
				else if (command === 'HELO') reply('250 mail-sink');
				else if (command === 'MAIL') {
					envelope.from = /<([^>]*)>/.exec(line)?.[1] ?? '';
					reply('250 OK');
				} else if (command === 'RCPT') {
					envelope.to.push(/<([^>]*)>/.exec(line)?.[1] ?? '');
					reply('250 OK');
				} else if (command === 'DATA') {
					data = [];
					reply('354 End data with <CR><LF>.<CR><LF>');
				} else if (command === 'RSET' || command === 'NOOP') reply('250 OK');
				else if (command === 'QUIT') {
					reply('221 Bye');
					socket.end();
				} else reply('502 Not implemented');
			}
		});
	});
	return new Promise((resolve, reject) => {
		server.once('error', reject);
		server.listen(port, host, () => {
			resolve({
				host,
				port: server.address().port,
				messages,
				close: () =>
					new Promise((done) => {
						for (const socket of sockets) socket.destroy();
						server.close(() => done());
					}),
			});
		});
	});
}

module.exports = { startMailSink };
