import{A as ot,R as Mn,s as Lt,c as qn,e as sn,f as Bn,a as Un,K as On,g as Kn}from"./keystore-BIuRHH42.js";var st,L,an,Se,xt,ln,cn,ht,je,xe,dn,At,_t,yt,un,Ze={},Qe=[],Vn=/acit|ex(?:s|g|n|p|$)|rph|grid|ows|mnc|ntw|ine[ch]|zoo|^ord|itera/i,at=Array.isArray;function be(t,n){for(var r in n)t[r]=n[r];return t}function $t(t){t&&t.parentNode&&t.parentNode.removeChild(t)}function Fn(t,n,r){var o,a,s,l={};for(s in n)s=="key"?o=n[s]:s=="ref"?a=n[s]:l[s]=n[s];if(arguments.length>2&&(l.children=arguments.length>3?st.call(arguments,2):r),typeof t=="function"&&t.defaultProps!=null)for(s in t.defaultProps)l[s]===void 0&&(l[s]=t.defaultProps[s]);return Ge(t,l,o,a,null)}function Ge(t,n,r,o,a){var s={type:t,props:n,key:r,ref:o,__k:null,__:null,__b:0,__e:null,__c:null,constructor:void 0,__v:a??++an,__i:-1,__u:0};return a==null&&L.vnode!=null&&L.vnode(s),s}function w(t){return t.children}function We(t,n){this.props=t,this.context=n}function ke(t,n){if(n==null)return t.__?ke(t.__,t.__i+1):null;for(var r;n<t.__k.length;n++)if((r=t.__k[n])!=null&&r.__e!=null)return r.__e;return typeof t.type=="function"?ke(t):null}function Hn(t){if(t.__P&&t.__d){var n=t.__v,r=n.__e,o=[],a=[],s=be({},n);s.__v=n.__v+1,L.vnode&&L.vnode(s),Tt(t.__P,s,n,t.__n,t.__P.namespaceURI,32&n.__u?[r]:null,o,r??ke(n),!!(32&n.__u),a),s.__v=n.__v,s.__.__k[s.__i]=s,gn(o,s,a),n.__e=n.__=null,s.__e!=r&&pn(s)}}function pn(t){if((t=t.__)!=null&&t.__c!=null)return t.__e=t.__c.base=null,t.__k.some(function(n){if(n!=null&&n.__e!=null)return t.__e=t.__c.base=n.__e}),pn(t)}function vt(t){(!t.__d&&(t.__d=!0)&&Se.push(t)&&!Xe.__r++||xt!=L.debounceRendering)&&((xt=L.debounceRendering)||ln)(Xe)}function Xe(){try{for(var t,n=1;Se.length;)Se.length>n&&Se.sort(cn),t=Se.shift(),n=Se.length,Hn(t)}finally{Se.length=Xe.__r=0}}function hn(t,n,r,o,a,s,l,i,d,c,p){var m,u,f,_,y,b,S=o&&o.__k||Qe,g=n.length;for(d=jn(r,n,S,d,g),m=0;m<g;m++)(f=r.__k[m])!=null&&(u=f.__i!=-1&&S[f.__i]||Ze,f.__i=m,b=Tt(t,f,u,a,s,l,i,d,c,p),_=f.__e,f.ref&&u.ref!=f.ref&&(u.ref&&Et(u.ref,null,f),p.push(f.ref,f.__c||_,f)),y==null&&_!=null&&(y=_),4&f.__u?(d=mn(f,d,t),u.__e&&(u.__e=null)):typeof f.type=="function"&&b!==void 0?d=b:_&&(d=_.nextSibling),f.__u&=-7);return r.__e=y,d}function jn(t,n,r,o,a){var s,l,i,d,c,p=r.length,m=p,u=0;for(t.__k=new Array(a),s=0;s<a;s++)(l=n[s])!=null&&typeof l!="boolean"&&typeof l!="function"?(typeof l=="string"||typeof l=="number"||typeof l=="bigint"||l.constructor==String?l=t.__k[s]=Ge(null,l,null,null,null):at(l)?l=t.__k[s]=Ge(w,{children:l},null,null,null):l.constructor===void 0&&l.__b>0?l=t.__k[s]=Ge(l.type,l.props,l.key,l.ref?l.ref:null,l.__v):t.__k[s]=l,d=s+u,l.__=t,l.__b=t.__b+1,i=null,(c=l.__i=Gn(l,r,d,m))!=-1&&(m--,(i=r[c])&&(i.__u|=2)),i==null||i.__v==null?(c==-1&&(a>p?u--:a<p&&u++),typeof l.type!="function"&&(l.__u|=4)):c!=d&&(c==d-1?u--:c==d+1?u++:(c>d?u--:u++,l.__u|=4))):t.__k[s]=null;if(m)for(s=0;s<p;s++)(i=r[s])!=null&&(2&i.__u)==0&&(i.__e==o&&(o=ke(i)),_n(i,i));return o}function mn(t,n,r){var o,a;if(typeof t.type=="function"){for(o=t.__k,a=0;o&&a<o.length;a++)o[a]&&(o[a].__=t,n=mn(o[a],n,r));return n}t.__e!=n&&(n&&t.type&&!n.parentNode&&(n=ke(t)),n=r.insertBefore(t.__e,n||null));do n=n&&n.nextSibling;while(n!=null&&n.nodeType==8);return n}function Gn(t,n,r,o){var a,s,l,i=t.key,d=t.type,c=n[r],p=c!=null&&(2&c.__u)==0;if(c===null&&i==null||p&&i==c.key&&d==c.type)return r;if(o>(p?1:0)){for(a=r-1,s=r+1;a>=0||s<n.length;)if((c=n[l=a>=0?a--:s++])!=null&&(2&c.__u)==0&&i==c.key&&d==c.type)return l}return-1}function Mt(t,n,r){n[0]=="-"?t.setProperty(n,r??""):t[n]=r==null?"":typeof r!="number"||Vn.test(n)?r:r+"px"}function He(t,n,r,o,a){var s,l;e:if(n=="style")if(typeof r=="string")t.style.cssText=r;else{if(typeof o=="string"&&(t.style.cssText=o=""),o)for(n in o)r&&n in r||Mt(t.style,n,"");if(r)for(n in r)o&&r[n]==o[n]||Mt(t.style,n,r[n])}else if(n[0]=="o"&&n[1]=="n")s=n!=(n=n.replace(dn,"$1")),l=n.toLowerCase(),n=l in t||n=="onFocusOut"||n=="onFocusIn"?l.slice(2):n.slice(2),t.l||(t.l={}),t.l[n+s]=r,r?o?r[xe]=o[xe]:(r[xe]=At,t.addEventListener(n,s?yt:_t,s)):t.removeEventListener(n,s?yt:_t,s);else{if(a=="http://www.w3.org/2000/svg")n=n.replace(/xlink(H|:h)/,"h").replace(/sName$/,"s");else if(n!="width"&&n!="height"&&n!="href"&&n!="list"&&n!="form"&&n!="tabIndex"&&n!="download"&&n!="rowSpan"&&n!="colSpan"&&n!="role"&&n!="popover"&&n in t)try{t[n]=r??"";break e}catch{}typeof r=="function"||(r==null||r===!1&&n[4]!="-"?t.removeAttribute(n):t.setAttribute(n,n=="popover"&&r==1?"":r))}}function qt(t){return function(n){if(this.l){var r=this.l[n.type+t];if(n[je]==null)n[je]=At++;else if(n[je]<r[xe])return;return r(L.event?L.event(n):n)}}}function Tt(t,n,r,o,a,s,l,i,d,c){var p,m,u,f,_,y,b,S,g,v,C,A,M,W,O,P,D=n.type;if(n.constructor!==void 0)return null;128&r.__u&&(d=!!(32&r.__u),s=[i=n.__e=r.__e]),(p=L.__b)&&p(n);e:if(typeof D=="function"){m=l.length;try{if(g=n.props,v=D.prototype&&D.prototype.render,C=(p=D.contextType)&&o[p.__c],A=p?C?C.props.value:p.__:o,r.__c?S=(u=n.__c=r.__c).__=u.__E:(v?n.__c=u=new D(g,A):(n.__c=u=new We(g,A),u.constructor=D,u.render=zn),C&&C.sub(u),u.state||(u.state={}),u.__n=o,f=u.__d=!0,u.__h=[],u._sb=[]),v&&u.__s==null&&(u.__s=u.state),v&&D.getDerivedStateFromProps!=null&&(u.__s==u.state&&(u.__s=be({},u.__s)),be(u.__s,D.getDerivedStateFromProps(g,u.__s))),_=u.props,y=u.state,u.__v=n,f)v&&D.getDerivedStateFromProps==null&&u.componentWillMount!=null&&u.componentWillMount(),v&&u.componentDidMount!=null&&u.__h.push(u.componentDidMount);else{if(v&&D.getDerivedStateFromProps==null&&g!==_&&u.componentWillReceiveProps!=null&&u.componentWillReceiveProps(g,A),n.__v==r.__v||!u.__e&&u.shouldComponentUpdate!=null&&u.shouldComponentUpdate(g,u.__s,A)===!1){n.__v!=r.__v&&(u.props=g,u.state=u.__s,u.__d=!1),n.__e=r.__e,n.__k=r.__k,n.__k.some(function(V){V&&(V.__=n)}),Qe.push.apply(u.__h,u._sb),u._sb=[],u.__h.length&&l.push(u),i=ke(r);break e}u.componentWillUpdate!=null&&u.componentWillUpdate(g,u.__s,A),v&&u.componentDidUpdate!=null&&u.__h.push(function(){u.componentDidUpdate(_,y,b)})}if(u.context=A,u.props=g,u.__P=t,u.__e=!1,M=L.__r,W=0,v)u.state=u.__s,u.__d=!1,M&&M(n),p=u.render(u.props,u.state,u.context),Qe.push.apply(u.__h,u._sb),u._sb=[];else do u.__d=!1,M&&M(n),p=u.render(u.props,u.state,u.context),u.state=u.__s;while(u.__d&&++W<25);u.state=u.__s,u.getChildContext!=null&&(o=be(be({},o),u.getChildContext())),v&&!f&&u.getSnapshotBeforeUpdate!=null&&(b=u.getSnapshotBeforeUpdate(_,y)),O=p!=null&&p.type===w&&p.key==null?bn(p.props.children):p,i=hn(t,at(O)?O:[O],n,r,o,a,s,l,i,d,c),u.base=n.__e,n.__u&=-161,u.__h.length&&l.push(u),S&&(u.__E=u.__=null)}catch(V){if(l.length=m,n.__v=null,d||s!=null){if(V.then){for(n.__u|=d?160:128;i&&i.nodeType==8&&i.nextSibling;)i=i.nextSibling;s!=null&&(s[s.indexOf(i)]=null),n.__e=i}else if(s!=null)for(P=s.length;P--;)$t(s[P])}else n.__e=r.__e;n.__k==null&&(n.__k=r.__k||[]),V.then||fn(n),L.__e(V,n,r)}}else s==null&&n.__v==r.__v?(n.__k=r.__k,n.__e=r.__e):i=n.__e=Wn(r.__e,n,r,o,a,s,l,d,c);return(p=L.diffed)&&p(n),128&n.__u?void 0:i}function fn(t){t&&(t.__c&&(t.__c.__e=!0),t.__k&&t.__k.some(fn))}function gn(t,n,r){for(var o=0;o<r.length;o++)Et(r[o],r[++o],r[++o]);L.__c&&L.__c(n,t),t.some(function(a){try{t=a.__h,a.__h=[],t.some(function(s){s.call(a)})}catch(s){L.__e(s,a.__v)}})}function bn(t){return typeof t!="object"||t==null||t.__b>0?t:at(t)?t.map(bn):t.constructor!==void 0?null:be({},t)}function Wn(t,n,r,o,a,s,l,i,d){var c,p,m,u,f,_,y,b=r.props||Ze,S=n.props,g=n.type;if(g=="svg"?a="http://www.w3.org/2000/svg":g=="math"?a="http://www.w3.org/1998/Math/MathML":a||(a="http://www.w3.org/1999/xhtml"),s!=null){for(c=0;c<s.length;c++)if((f=s[c])&&"setAttribute"in f==!!g&&(g?f.localName==g:f.nodeType==3)){t=f,s[c]=null;break}}if(t==null){if(g==null)return document.createTextNode(S);t=document.createElementNS(a,g,S.is&&S),i&&(L.__m&&L.__m(n,s),i=!1),s=null}if(g==null)b===S||i&&t.data==S||(t.data=S);else{if(s=g=="textarea"&&S.defaultValue!=null?null:s&&st.call(t.childNodes),!i&&s!=null)for(b={},c=0;c<t.attributes.length;c++)b[(f=t.attributes[c]).name]=f.value;for(c in b)f=b[c],c=="dangerouslySetInnerHTML"?m=f:c=="children"||c in S||c=="value"&&"defaultValue"in S||c=="checked"&&"defaultChecked"in S||He(t,c,null,f,a);for(c in S)f=S[c],c=="children"?u=f:c=="dangerouslySetInnerHTML"?p=f:c=="value"?_=f:c=="checked"?y=f:i&&typeof f!="function"||b[c]===f||He(t,c,f,b[c],a);if(p)i||m&&(p.__html==m.__html||p.__html==t.innerHTML)||(t.innerHTML=p.__html),n.__k=[];else if(m&&(t.innerHTML=""),hn(n.type=="template"?t.content:t,at(u)?u:[u],n,r,o,g=="foreignObject"?"http://www.w3.org/1999/xhtml":a,s,l,s?s[0]:r.__k&&ke(r,0),i,d),s!=null)for(c=s.length;c--;)$t(s[c]);i&&g!="textarea"||(c="value",g=="progress"&&_==null?t.removeAttribute("value"):_!=null&&(_!==t[c]||g=="progress"&&!_||g=="option"&&_!=b[c])&&He(t,c,_,b[c],a),c="checked",y!=null&&y!=t[c]&&He(t,c,y,b[c],a))}return t}function Et(t,n,r){try{if(typeof t=="function"){var o=typeof t.__u=="function";o&&t.__u(),o&&n==null||(t.__u=t(n))}else t.current=n}catch(a){L.__e(a,r)}}function _n(t,n,r){var o,a;if(L.unmount&&L.unmount(t),(o=t.ref)&&(o.current&&o.current!=t.__e||Et(o,null,n)),(o=t.__c)!=null){if(o.componentWillUnmount)try{o.componentWillUnmount()}catch(s){L.__e(s,n)}o.base=o.__P=o.__n=null}if(o=t.__k)for(a=0;a<o.length;a++)o[a]&&_n(o[a],n,r||typeof t.type!="function");r||$t(t.__e),t.__c=t.__=t.__e=void 0}function zn(t,n,r){return this.constructor(t,r)}function Jn(t,n,r){var o,a,s,l;n==document&&(n=document.documentElement),L.__&&L.__(t,n),a=(o=!1)?null:n.__k,s=[],l=[],Tt(n,t=n.__k=Fn(w,null,[t]),a||Ze,Ze,n.namespaceURI,a?null:n.firstChild?st.call(n.childNodes):null,s,a?a.__e:n.firstChild,o,l),gn(s,t,l),t.props.children=null}function Zn(t){function n(r){var o,a;return this.getChildContext||(o=new Set,(a={})[n.__c]=this,this.getChildContext=function(){return a},this.componentWillUnmount=function(){o=null},this.shouldComponentUpdate=function(s){this.props.value!=s.value&&o.forEach(function(l){l.__e=!0,vt(l)})},this.sub=function(s){o.add(s);var l=s.componentWillUnmount;s.componentWillUnmount=function(){o&&o.delete(s),l&&l.call(s)}}),r.children}return n.__c="__cC"+un++,n.__=t,n.Provider=n.__l=(n.Consumer=function(r,o){return r.children(o)}).contextType=n,n}st=Qe.slice,L={__e:function(t,n,r,o){for(var a,s,l;n=n.__;)if((a=n.__c)&&!a.__)try{if((s=a.constructor)&&s.getDerivedStateFromError!=null&&(a.setState(s.getDerivedStateFromError(t)),l=a.__d),a.componentDidCatch!=null&&(a.componentDidCatch(t,o||{}),l=a.__d),l)return a.__E=a}catch(i){t=i}throw t}},an=0,We.prototype.setState=function(t,n){var r;r=this.__s!=null&&this.__s!=this.state?this.__s:this.__s=be({},this.state),typeof t=="function"&&(t=t(be({},r),this.props)),t&&be(r,t),t!=null&&this.__v&&(n&&this._sb.push(n),vt(this))},We.prototype.forceUpdate=function(t){this.__v&&(this.__e=!0,t&&this.__h.push(t),vt(this))},We.prototype.render=w,Se=[],ln=typeof Promise=="function"?Promise.prototype.then.bind(Promise.resolve()):setTimeout,cn=function(t,n){return t.__v.__b-n.__v.__b},Xe.__r=0,ht=Math.random().toString(8),je="__d"+ht,xe="__a"+ht,dn=/(PointerCapture)$|Capture$/i,At=0,_t=qt(!1),yt=qt(!0),un=0;var Qn=0;function e(t,n,r,o,a,s){n||(n={});var l,i,d=n;if("ref"in d)for(i in d={},n)i=="ref"?l=n[i]:d[i]=n[i];var c={type:t,props:d,key:r,ref:l,__k:null,__:null,__b:0,__e:null,__c:null,constructor:void 0,__v:--Qn,__i:-1,__u:0,__source:a,__self:s};if(typeof t=="function"&&(l=t.defaultProps))for(i in l)d[i]===void 0&&(d[i]=l[i]);return L.vnode&&L.vnode(c),c}var Ae,B,mt,Bt,Me=0,yn=[],H=L,Ut=H.__b,Ot=H.__r,Kt=H.diffed,Vt=H.__c,Ft=H.unmount,Ht=H.__;function Be(t,n){H.__h&&H.__h(B,t,Me||n),Me=0;var r=B.__H||(B.__H={__:[],__h:[]});return t>=r.__.length&&r.__.push({}),r.__[t]}function h(t){return Me=1,Xn(Sn,t)}function Xn(t,n,r){var o=Be(Ae++,2);if(o.t=t,!o.__c&&(o.__=[Sn(void 0,n),function(i){var d=o.__N?o.__N[0]:o.__[0],c=o.t(d,i);d!==c&&(o.__N=[c,o.__[1]],o.__c.setState({}))}],o.__c=B,!B.__f)){var a=function(i,d,c){if(!o.__c.__H)return!0;var p=!1,m=o.__c.props!==i;if(o.__c.__H.__.some(function(f){if(f.__N){p=!0;var _=f.__[0];f.__=f.__N,f.__N=void 0,_!==f.__[0]&&(m=!0)}}),s){var u=s.call(this,i,d,c);return p?u||m:u}return!p||m};B.__f=!0;var s=B.shouldComponentUpdate,l=B.componentWillUpdate;B.componentWillUpdate=function(i,d,c){if(this.__e){var p=s;s=void 0,a(i,d,c),s=p}l&&l.call(this,i,d,c)},B.shouldComponentUpdate=a}return o.__N||o.__}function R(t,n){var r=Be(Ae++,3);!H.__s&&vn(r.__H,n)&&(r.__=t,r.u=n,B.__H.__h.push(r))}function ee(t){return Me=5,De(function(){return{current:t}},[])}function De(t,n){var r=Be(Ae++,7);return vn(r.__H,n)&&(r.__=t(),r.__H=n,r.__h=t),r.__}function qe(t,n){return Me=8,De(function(){return t},n)}function Yn(t){var n=B.context[t.__c],r=Be(Ae++,9);return r.c=t,n?(r.__==null&&(r.__=!0,n.sub(B)),n.props.value):t.__}function er(){var t=Be(Ae++,11);if(!t.__){for(var n=B.__v;n!==null&&!n.__m&&n.__!==null;)n=n.__;var r=n.__m||(n.__m=[0,0]);t.__="P"+r[0]+"-"+r[1]++}return t.__}function tr(){for(var t;t=yn.shift();){var n=t.__H;if(t.__P&&n)try{n.__h.some(ze),n.__h.some(St),n.__h=[]}catch(r){n.__h=[],H.__e(r,t.__v)}}}H.__b=function(t){B=null,Ut&&Ut(t)},H.__=function(t,n){t&&n.__k&&n.__k.__m&&(t.__m=n.__k.__m),Ht&&Ht(t,n)},H.__r=function(t){Ot&&Ot(t),Ae=0;var n=(B=t.__c).__H;n&&(mt===B?(n.__h=[],B.__h=[],n.__.some(function(r){r.__N&&(r.__=r.__N),r.u=r.__N=void 0})):(n.__h.some(ze),n.__h.some(St),n.__h=[],Ae=0)),mt=B},H.diffed=function(t){Kt&&Kt(t);var n=t.__c;n&&n.__H&&(n.__H.__h.length&&(yn.push(n)!==1&&Bt===H.requestAnimationFrame||((Bt=H.requestAnimationFrame)||nr)(tr)),n.__H.__.some(function(r){r.u&&(r.__H=r.u,r.u=void 0)})),mt=B=null},H.__c=function(t,n){n.some(function(r){try{r.__h.some(ze),r.__h=r.__h.filter(function(o){return!o.__||St(o)})}catch(o){n.some(function(a){a.__h&&(a.__h=[])}),n=[],H.__e(o,r.__v)}}),Vt&&Vt(t,n)},H.unmount=function(t){Ft&&Ft(t);var n,r=t.__c;r&&r.__H&&(r.__H.__.some(function(o){try{ze(o)}catch(a){n=a}}),r.__H=void 0,n&&H.__e(n,r.__v))};var jt=typeof requestAnimationFrame=="function";function nr(t){var n,r=function(){clearTimeout(o),jt&&cancelAnimationFrame(n),setTimeout(t)},o=setTimeout(r,35);jt&&(n=requestAnimationFrame(r))}function ze(t){var n=B,r=t.__c;typeof r=="function"&&(t.__c=void 0,r()),B=n}function St(t){var n=B;t.__c=t.__(),B=n}function vn(t,n){return!t||t.length!==n.length||n.some(function(r,o){return r!==t[o]})}function Sn(t,n){return typeof n=="function"?n(t):n}class I extends String{__apiType;value;__meta__;constructor(n,r){super(n),this.value=n,this.__meta__=r}toString(){return this.value}}new I(`
    fragment RunRow on AgentRun {
  id
  status
  input
  output
  steps
  startedAt
  finishedAt
  model
  promptTokens
  completionTokens
  error {
    code
    message
  }
  toolCalls {
    id
    toolId
    status
    latencyMs
    arguments
    error {
      code
      message
    }
  }
}
    `,{fragmentName:"RunRow"});new I(`
    fragment PendingApproval on ToolCall {
  id
  toolId
  arguments
  tool {
    id
    name
    label
  }
  agent {
    id
    name
  }
  run {
    id
    status
  }
  approval {
    requestedAt
    expiresAt
  }
}
    `,{fragmentName:"PendingApproval"});new I(`
    fragment CallRow on ToolCall {
  id
  toolId
  status
  latencyMs
  attempts
  traceId
  startedAt
  idempotencyKey
  arguments
  result
  error {
    code
    message
    detail
  }
  space {
    id
    name
  }
  agent {
    id
    name
  }
  run {
    id
  }
}
    `,{fragmentName:"CallRow"});new I(`
    fragment ToolRow on Tool {
  id
  name
  label
  type
  status
  isGlobal
  sideEffect
  driftedAt
  boundSpaces {
    id
    name
  }
  mcpServer {
    id
    name
  }
}
    `,{fragmentName:"ToolRow"});const rr=new I(`
    query Agents($first: Int!, $after: String) {
  agents(first: $first, after: $after) {
    totalCount
    pageInfo {
      hasNextPage
      endCursor
    }
    edges {
      node {
        id
        name
        model
        status
        updatedAt
        space {
          id
          name
        }
      }
    }
  }
}
    `),or=new I(`
    query AgentDetail($id: ID!) {
  agent(id: $id) {
    id
    name
    model
    systemPrompt
    maxSteps
    outputFormat
    status
    boundSkillReferences
    space {
      id
      name
    }
    mountedKnowledgeBases {
      id
      name
    }
    activatedTools {
      id
      name
    }
    runs(first: 50) {
      totalCount
      edges {
        node {
          ...RunRow
        }
      }
    }
  }
}
    fragment RunRow on AgentRun {
  id
  status
  input
  output
  steps
  startedAt
  finishedAt
  model
  promptTokens
  completionTokens
  error {
    code
    message
  }
  toolCalls {
    id
    toolId
    status
    latencyMs
    arguments
    error {
      code
      message
    }
  }
}`),sr=new I(`
    query AgentChoices($spaceId: ID!) {
  space(id: $spaceId) {
    id
    visibleTools(first: 100) {
      edges {
        node {
          id
          name
          label
        }
      }
    }
    skills(first: 100) {
      edges {
        node {
          id
          name
          label
          version
        }
      }
    }
    knowledgeBases(first: 100) {
      edges {
        node {
          id
          name
          label
        }
      }
    }
  }
}
    `),ar=new I(`
    mutation CreateAgent($input: CreateAgentInput!) {
  createAgent(input: $input) {
    agent {
      id
    }
    notices
    userErrors {
      field
      code
      message
    }
  }
}
    `),lr=new I(`
    mutation UpdateAgent($input: UpdateAgentInput!) {
  updateAgent(input: $input) {
    agent {
      id
    }
    notices
    userErrors {
      field
      code
      message
    }
  }
}
    `),ir=new I(`
    query PreviewPrompt($agentId: ID!, $message: String!) {
  previewPrompt(agentId: $agentId, message: $message) {
    tokenEstimate
    budgetChars
    charCount
    warnings
    sections {
      kind
      source
      text
      truncated
      reason
    }
  }
}
    `),cr=new I(`
    mutation InvokeAgent($input: InvokeAgentInput!) {
  invokeAgent(input: $input) {
    run {
      ...RunRow
    }
    userErrors {
      field
      code
      message
    }
  }
}
    fragment RunRow on AgentRun {
  id
  status
  input
  output
  steps
  startedAt
  finishedAt
  model
  promptTokens
  completionTokens
  error {
    code
    message
  }
  toolCalls {
    id
    toolId
    status
    latencyMs
    arguments
    error {
      code
      message
    }
  }
}`),dr=new I(`
    subscription AgentRunEvents($runId: ID!) {
  agentRunEvents(runId: $runId) {
    kind
    at
    delta
    toolId
    step
    toolCall {
      id
      toolId
      status
      latencyMs
      error {
        code
        message
      }
    }
    run {
      id
      status
      output
      steps
      error {
        code
        message
      }
    }
  }
}
    `),Gt=new I(`
    query AgentRun($id: ID!) {
  agentRun(id: $id) {
    ...RunRow
  }
}
    fragment RunRow on AgentRun {
  id
  status
  input
  output
  steps
  startedAt
  finishedAt
  model
  promptTokens
  completionTokens
  error {
    code
    message
  }
  toolCalls {
    id
    toolId
    status
    latencyMs
    arguments
    error {
      code
      message
    }
  }
}`),ur=new I(`
    query ApiKeys($first: Int!, $after: String, $state: ApiKeyState) {
  apiKeys(first: $first, after: $after, state: $state) {
    totalCount
    pageInfo {
      hasNextPage
      endCursor
    }
    edges {
      node {
        id
        label
        role
        createdAt
        expiresAt
        revokedAt
        lastUsedAt
        state
        space {
          id
          name
        }
      }
    }
  }
}
    `),pr=new I(`
    mutation CreateApiKey($input: CreateApiKeyInput!) {
  createApiKey(input: $input) {
    apiKey {
      id
    }
    secret
    userErrors {
      field
      code
      message
    }
  }
}
    `),hr=new I(`
    mutation RevokeApiKey($input: RevokeApiKeyInput!) {
  revokeApiKey(input: $input) {
    apiKey {
      id
      state
    }
    userErrors {
      field
      code
      message
    }
  }
}
    `),mr=new I(`
    query PendingApprovals($spaceId: ID!, $first: Int!, $after: String) {
  pendingApprovals(spaceId: $spaceId, first: $first, after: $after) {
    totalCount
    pageInfo {
      hasNextPage
      endCursor
    }
    edges {
      node {
        ...PendingApproval
      }
    }
  }
}
    fragment PendingApproval on ToolCall {
  id
  toolId
  arguments
  tool {
    id
    name
    label
  }
  agent {
    id
    name
  }
  run {
    id
    status
  }
  approval {
    requestedAt
    expiresAt
  }
}`),fr=new I(`
    query PendingApprovalCount($spaceId: ID!) {
  pendingApprovals(spaceId: $spaceId, first: 1) {
    totalCount
  }
}
    `),gr=new I(`
    mutation ApproveToolCall($input: ApproveToolCallInput!) {
  approveToolCall(input: $input) {
    toolCall {
      id
      status
      approval {
        decision
        comment
      }
    }
    run {
      id
      status
    }
    userErrors {
      field
      code
      message
    }
  }
}
    `),br=new I(`
    mutation RejectToolCall($input: RejectToolCallInput!) {
  rejectToolCall(input: $input) {
    toolCall {
      id
      status
      approval {
        decision
        comment
      }
    }
    run {
      id
      status
    }
    userErrors {
      field
      code
      message
    }
  }
}
    `),_r=new I(`
    subscription ApprovalRequests($spaceId: ID!) {
  approvalRequests(spaceId: $spaceId) {
    kind
    toolCallId
  }
}
    `),yr=new I(`
    subscription LiveToolCalls($filter: ToolCallFilter) {
  toolCalls(filter: $filter) {
    ...CallRow
  }
}
    fragment CallRow on ToolCall {
  id
  toolId
  status
  latencyMs
  attempts
  traceId
  startedAt
  idempotencyKey
  arguments
  result
  error {
    code
    message
    detail
  }
  space {
    id
    name
  }
  agent {
    id
    name
  }
  run {
    id
  }
}`),vr=new I(`
    query RecentToolCalls($filter: ToolCallFilter, $first: Int!, $after: String) {
  toolCalls(filter: $filter, first: $first, after: $after) {
    totalCount
    pageInfo {
      hasNextPage
      endCursor
    }
    edges {
      node {
        ...CallRow
      }
    }
  }
}
    fragment CallRow on ToolCall {
  id
  toolId
  status
  latencyMs
  attempts
  traceId
  startedAt
  idempotencyKey
  arguments
  result
  error {
    code
    message
    detail
  }
  space {
    id
    name
  }
  agent {
    id
    name
  }
  run {
    id
  }
}`),Sr=new I(`
    query KnowledgeBases($first: Int!, $after: String) {
  knowledgeBases(first: $first, after: $after) {
    totalCount
    pageInfo {
      hasNextPage
      endCursor
    }
    edges {
      node {
        id
        name
        label
        description
        documentCount
        createdAt
        space {
          id
          name
        }
      }
    }
  }
}
    `),wr=new I(`
    query KnowledgeBaseDetail($id: ID!, $first: Int!, $after: String) {
  node(id: $id) {
    __typename
    id
    ... on KnowledgeBase {
      name
      label
      description
      space {
        id
        name
      }
      documents(first: $first, after: $after) {
        totalCount
        pageInfo {
          hasNextPage
          endCursor
        }
        edges {
          node {
            id
            title
            source
            chunkCount
            createdAt
          }
        }
      }
    }
  }
}
    `),Ir=new I(`
    mutation CreateKnowledgeBase($input: CreateKnowledgeBaseInput!) {
  createKnowledgeBase(input: $input) {
    knowledgeBase {
      id
    }
    userErrors {
      field
      code
      message
    }
  }
}
    `),Cr=new I(`
    mutation AddDocument($input: AddDocumentInput!) {
  addDocument(input: $input) {
    document {
      id
      title
      chunkCount
    }
    outcome
    userErrors {
      field
      code
      message
    }
  }
}
    `),kr=new I(`
    query SearchKnowledge($spaceId: ID!, $query: String!, $knowledgeBaseIds: [ID!], $topK: Int) {
  searchKnowledge(
    spaceId: $spaceId
    query: $query
    knowledgeBaseIds: $knowledgeBaseIds
    topK: $topK
  ) {
    text
    score
    headingPath
    chunkIndex
    source
    knowledgeBaseId
    document {
      id
      title
    }
  }
}
    `),Ar=new I(`
    query McpServers($first: Int!, $after: String) {
  mcpServers(first: $first, after: $after) {
    totalCount
    pageInfo {
      hasNextPage
      endCursor
    }
    edges {
      node {
        id
        name
        url
        command
        transport
        status
        authType
        lastSyncedAt
        lastError
        createdAt
        isGlobal
        boundSpaces {
          id
          name
        }
      }
    }
  }
}
    `),$r=new I(`
    query McpServerTools($id: ID!, $after: String) {
  node(id: $id) {
    ... on McpServer {
      id
      tools(first: 100, after: $after) {
        totalCount
        pageInfo {
          hasNextPage
          endCursor
        }
        edges {
          node {
            id
            name
            label
            status
            driftedAt
          }
        }
      }
    }
  }
}
    `),Tr=new I(`
    mutation RegisterMcpServer($input: RegisterMcpServerInput!) {
  registerMcpServer(input: $input) {
    mcpServer {
      id
    }
    userErrors {
      field
      code
      message
    }
  }
}
    `),Er=new I(`
    mutation SyncMcpServer($id: ID!) {
  syncMcpServer(id: $id) {
    mcpServer {
      id
      lastSyncedAt
      lastError
    }
    syncReport {
      pages
      added
      updated
      unchanged
      vanished
      disabled
      drifted
      reactivated
      skipped
    }
    userErrors {
      field
      code
      message
    }
  }
}
    `),Rr=new I(`
    query Skills($first: Int!, $after: String, $filter: SkillFilter) {
  skills(first: $first, after: $after, filter: $filter) {
    totalCount
    pageInfo {
      hasNextPage
      endCursor
    }
    edges {
      node {
        id
        name
        label
        type
        status
        version
        candidateVersion
        canaryPercent
        space {
          id
          name
        }
      }
    }
  }
}
    `),Dr=new I(`
    query SkillDetail($id: ID!) {
  skill(id: $id) {
    id
    name
    label
    description
    prompt
    category
    tags
    triggerHints
    boundary
    toolIds
    type
    status
    version
    charCount
    createdAt
    updatedAt
    canaryPercent
    candidateVersion
    space {
      id
      name
    }
    versions {
      version
      channel
      prompt
      createdAt
    }
    channelHistory {
      action
      channel
      fromVersion
      toVersion
      canaryPercent
      actor
      at
    }
  }
}
    `),Pr=new I(`
    query SkillMd($id: ID!, $version: String) {
  skill(id: $id) {
    id
    name
    skillMd(version: $version)
  }
}
    `),Nr=new I(`
    mutation CreateSkill($input: CreateSkillInput!) {
  createSkill(input: $input) {
    skill {
      id
    }
    userErrors {
      field
      code
      message
    }
  }
}
    `),Lr=new I(`
    mutation PublishSkillVersion($input: PublishSkillVersionInput!) {
  publishSkillVersion(input: $input) {
    skillVersion {
      version
      channel
    }
    userErrors {
      field
      code
      message
    }
  }
}
    `),xr=new I(`
    mutation PromoteSkillCandidate($input: PromoteSkillCandidateInput!) {
  promoteSkillCandidate(input: $input) {
    skill {
      id
      version
    }
    userErrors {
      field
      code
      message
    }
  }
}
    `),Mr=new I(`
    mutation RollbackSkill($input: RollbackSkillInput!) {
  rollbackSkill(input: $input) {
    skill {
      id
      version
    }
    userErrors {
      field
      code
      message
    }
  }
}
    `),qr=new I(`
    mutation SetSkillCanary($input: SetSkillCanaryInput!) {
  setSkillCanary(input: $input) {
    skill {
      id
      canaryPercent
    }
    userErrors {
      field
      code
      message
    }
  }
}
    `),Br=new I(`
    mutation ImportSkill($input: ImportSkillInput!) {
  importSkill(input: $input) {
    skill {
      id
    }
    isCreated
    userErrors {
      field
      code
      message
    }
  }
}
    `),Ur=new I(`
    query MatchSkills($spaceId: ID!, $query: String!, $topK: Int) {
  matchSkills(spaceId: $spaceId, query: $query, topK: $topK) {
    score
    reason
    lexicalScore
    semanticScore
    boundaryFactor
    skill {
      id
      name
      label
    }
  }
}
    `),Or=new I(`
    query Spaces($first: Int!, $after: String) {
  spaces(first: $first, after: $after) {
    totalCount
    pageInfo {
      hasNextPage
      endCursor
    }
    edges {
      node {
        id
        name
        label
        isSystem
        createdAt
      }
    }
  }
}
    `),Kr=new I(`
    query SpaceDetail($id: ID!) {
  space(id: $id) {
    id
    name
    label
    isSystem
    createdAt
    visibleTools(first: 100) {
      totalCount
      edges {
        node {
          id
          name
          label
          type
          isGlobal
        }
      }
    }
    skills(first: 100) {
      totalCount
      edges {
        node {
          id
          name
          label
          version
          space {
            id
          }
        }
      }
    }
    knowledgeBases(first: 100) {
      totalCount
      edges {
        node {
          id
          name
          label
          documentCount
        }
      }
    }
    agents(first: 100) {
      totalCount
      edges {
        node {
          id
          name
          model
          status
        }
      }
    }
  }
}
    `),Vr=new I(`
    mutation CreateSpace($input: CreateSpaceInput!) {
  createSpace(input: $input) {
    space {
      id
      name
      label
    }
    userErrors {
      field
      code
      message
    }
  }
}
    `),Fr=new I(`
    query Tools($first: Int!, $after: String, $filter: ToolFilter) {
  tools(first: $first, after: $after, filter: $filter) {
    totalCount
    pageInfo {
      hasNextPage
      endCursor
    }
    edges {
      node {
        ...ToolRow
      }
    }
  }
}
    fragment ToolRow on Tool {
  id
  name
  label
  type
  status
  isGlobal
  sideEffect
  driftedAt
  boundSpaces {
    id
    name
  }
  mcpServer {
    id
    name
  }
}`),Hr=new I(`
    query SpaceTools($spaceId: ID!, $first: Int!, $after: String, $filter: ToolFilter) {
  space(id: $spaceId) {
    id
    visibleTools(
      first: $first
      after: $after
      filter: $filter
      includeInactive: true
    ) {
      totalCount
      pageInfo {
        hasNextPage
        endCursor
      }
      edges {
        node {
          ...ToolRow
        }
      }
    }
  }
}
    fragment ToolRow on Tool {
  id
  name
  label
  type
  status
  isGlobal
  sideEffect
  driftedAt
  boundSpaces {
    id
    name
  }
  mcpServer {
    id
    name
  }
}`),wn=new I(`
    query ToolDetail($id: ID!) {
  tool(id: $id) {
    id
    name
    label
    description
    inputSchema
    outputSchema
    type
    status
    endpoint
    authType
    viewerCanManage
    sideEffect
    timeoutMs
    maxRetries
    tags
    group
    allowedRoles
    version
    owner
    createdAt
    updatedAt
    driftedAt
    isGlobal
    boundSpaces {
      id
      name
      label
    }
    mcpServer {
      id
      name
      isGlobal
      boundSpaces {
        id
        name
        label
      }
    }
    stats {
      calls
      failures
      failuresByCode
      p50LatencyMs
      p95LatencyMs
      lastCalledAt
    }
  }
}
    `),jr=new I(`
    mutation CreateTool($input: CreateToolInput!) {
  createTool(input: $input) {
    tool {
      id
    }
    userErrors {
      field
      code
      message
    }
  }
}
    `),Gr=new I(`
    mutation UpdateTool($input: UpdateToolInput!) {
  updateTool(input: $input) {
    tool {
      id
    }
    userErrors {
      field
      code
      message
    }
  }
}
    `),Wr=new I(`
    mutation SetSpaceBindings($input: SetBindingsInput!) {
  setSpaceBindings(input: $input) {
    tool {
      id
      isGlobal
      boundSpaces {
        id
      }
    }
    mcpServer {
      id
      isGlobal
      boundSpaces {
        id
      }
    }
    userErrors {
      field
      code
      message
    }
  }
}
    `),Rt=new I(`
    mutation SetStatus($input: SetStatusInput!) {
  setStatus(input: $input) {
    node {
      id
    }
    userErrors {
      field
      code
      message
    }
  }
}
    `),zr=new I(`
    mutation InvokeTool($input: InvokeToolInput!) {
  invokeTool(input: $input) {
    status
    data
    traceId
    latencyMs
    error {
      code
      message
      detail
    }
  }
}
    `),In=new I(`
    query Viewer {
  viewer {
    role
    keyId
    keyLabel
    space {
      id
      name
      label
    }
  }
}
    `),Jr=new I(`
    query SpaceOptions($after: String) {
  spaces(first: 100, after: $after) {
    totalCount
    pageInfo {
      hasNextPage
      endCursor
    }
    edges {
      node {
        id
        name
        label
        isSystem
      }
    }
  }
}
    `),wt="/console";let Dt=0;function Zr(){return Dt}function _e(t,{replace:n=!1}={}){n?window.history.replaceState(null,"",t):(Dt+=1,window.history.pushState(null,"",t)),window.dispatchEvent(new PopStateEvent("popstate"))}window.addEventListener("popstate",t=>{t.isTrusted&&(Dt+=1)});function Cn(){const[t,n]=h(Wt);return R(()=>{const r=()=>n(Wt());return window.addEventListener("popstate",r),()=>window.removeEventListener("popstate",r)},[]),t}function Wt(){const t=window.location.pathname;return(t.startsWith(wt)?t.slice(wt.length):t).replace(/\/+$/,"")}function Pt(t){return Cn(),new URLSearchParams(window.location.search).get(t)}function ie(t){return`${wt}${t}`}function T({to:t,children:n,...r}){return e("a",{...r,href:ie(t),onClick:o=>{o.defaultPrevented||o.button!==0||o.metaKey||o.ctrlKey||o.shiftKey||(o.preventDefault(),_e(ie(t)))},children:n})}const Qr=4e3;function Xr(t){const n=t.role,r=t.space?.id??null;return{admin:n==="ADMIN",manageSome:n==="ADMIN"||n==="SPACE_ADMIN",invoke:n!=="VIEWER",manage:o=>n==="ADMIN"||n==="SPACE_ADMIN"&&o!=null&&o===r}}const kn=Zn(null);function $(){const t=Yn(kn);if(t===null)throw new Error("useSession outside a signed-in console");return t}function Z(t,n){const[r,o]=h({data:null,error:null,loading:!0}),[a,s]=h(0);R(()=>{let i=!0;return o(d=>({...d,loading:!0})),t().then(d=>i&&o({data:d,error:null,loading:!1}),d=>{i&&!(d instanceof ot)&&o(c=>({...c,error:re(d),loading:!1}))}),()=>{i=!1}},[...n,a]);const l=qe(()=>s(i=>i+1),[]);return{...r,reload:l}}function re(t){return t instanceof Error?t.message:String(t)}function j(){const[t,n]=h(!1),[r,o]=h([]),a=qe(async s=>{n(!0),o([]);try{const l=await s();return o(l.userErrors),l.userErrors.length===0?l:null}catch(l){return l instanceof ot||o([{field:null,code:"ERROR",message:re(l)}]),null}finally{n(!1)}},[]);return{busy:t,errors:r,setErrors:o,run:a}}function lt(t,n){const r=n.split(".");return t.filter(o=>{const a=o.field??[];return a.length>=r.length&&r.every((s,l)=>a[a.length-r.length+l]===s)})}function te({errors:t,fields:n}){const r=t.filter(o=>n.every(a=>!lt([o],a).length));return r.length?e("div",{class:"form-errors",role:"alert",children:r.map((o,a)=>e("p",{children:[o.message," ",e("span",{class:"code",children:o.code})]},a))}):null}function we({label:t,wide:n=!1,noValidate:r=!1,onSubmit:o,mutation:a,fields:s,submitLabel:l,cancel:i,notice:d,children:c}){return e("form",{class:n?"card form wide":"card form",onSubmit:o,"aria-label":t,noValidate:r,children:[c,e(te,{errors:a.errors,fields:s}),d,e("div",{class:"buttons",children:[e("button",{type:"submit",class:"primary",disabled:a.busy,children:l}),typeof i=="string"?e(T,{class:"button",to:i,children:"Cancel"}):e("button",{type:"button",onClick:i,children:"Cancel"})]})]})}function Ue({label:t,name:n,errors:r=[],hint:o,children:a}){const s=er(),l=lt(r,n),i=[o?`${s}-hint`:"",l.length?`${s}-error`:""].filter(Boolean).join(" ");return e("div",{class:`field${l.length?" invalid":""}`,children:[e("label",{for:s,children:t}),a({id:s,"aria-invalid":l.length>0,"aria-describedby":i||void 0}),o&&e("p",{class:"hint",id:`${s}-hint`,children:o}),l.length>0&&e("p",{class:"field-error",id:`${s}-error`,role:"alert",children:l.map(d=>d.message).join(" ")})]})}function k({label:t,name:n,value:r,onInput:o,errors:a,hint:s,type:l="text",...i}){return e(Ue,{label:t,name:n,errors:a,hint:s,children:d=>e("input",{...d,...i,name:n,type:l,value:r,onInput:c=>o(c.currentTarget.value)})})}function ne({label:t,name:n,value:r,onInput:o,errors:a,hint:s,rows:l=6,mono:i=!1}){return e(Ue,{label:t,name:n,errors:a,hint:s,children:d=>e("textarea",{...d,class:i?"mono":void 0,name:n,rows:l,value:r,spellcheck:!i,onInput:c=>o(c.currentTarget.value)})})}function U({label:t,name:n,value:r,options:o,onChange:a,errors:s,hint:l}){return e(Ue,{label:t,name:n,errors:s,hint:l,children:i=>e("select",{...i,name:n,value:o.some(([d])=>d===r)?r:o[0]?.[0],onChange:d=>a(d.currentTarget.value),children:o.map(([d,c])=>e("option",{value:d,children:c},d))})})}function $e({legend:t,options:n,selected:r,onChange:o,errors:a=[],name:s}){const l=lt(a,s);return e("fieldset",{class:"checkbox-group",children:[e("legend",{children:t}),n.length===0&&e("p",{class:"hint",children:"Nothing to choose from."}),n.map(i=>e("label",{class:"check",children:[e("input",{type:"checkbox",checked:r.includes(i.value),onChange:d=>o(d.currentTarget.checked?[...r,i.value]:r.filter(c=>c!==i.value))}),i.label]},i.value)),l.length>0&&e("p",{class:"field-error",role:"alert",children:l.map(i=>i.message).join(" ")})]})}function Ye(t){if(!t.trim())return{value:null,problem:null};try{return{value:JSON.parse(t),problem:null}}catch(n){return{value:null,problem:`Not valid JSON: ${re(n)}`}}}function et(t){return JSON.stringify(t,null,2)}function Te({value:t,label:n}){return e("pre",{class:"json","aria-label":n,tabIndex:0,children:t==null?"—":et(t)})}function x({title:t,children:n}){const r=ee(null);return R(()=>{Zr()!==0&&r.current?.focus({preventScroll:!0})},[t]),e("header",{class:"page-header",children:[e("h1",{tabIndex:-1,ref:r,children:t}),n&&e("div",{class:"actions",children:n})]})}function X({error:t,retry:n}){return t?e("div",{class:"form-errors",role:"alert",children:[e("p",{children:t}),n&&e("button",{type:"button",onClick:n,children:"Try again"})]}):null}function it({loads:t}){const n=t.filter(o=>o.error!==null);if(!n.length)return null;const r=[...new Set(n.map(o=>o.error))];return e(X,{error:r.join(" "),retry:()=>n.forEach(o=>o.reload())})}function Re({children:t}){return e("div",{class:"notice",role:"status",children:t})}function E({children:t,tone:n="plain"}){return e("span",{class:`badge ${n}`,children:t})}function J(t){return t==="ACTIVE"||t==="SUCCESS"||t==="SUCCEEDED"||t==="PRODUCTION"?"good":t==="DISABLED"||t==="FAILED"||t==="MAX_STEPS"?"bad":t==="RUNNING"||t==="CANDIDATE"||t==="QUEUED"||t==="WAITING_APPROVAL"||t==="PENDING_APPROVAL"||t==="PENDING"?"busy":"plain"}function G(t){if(!t)return"—";const n=new Date(t);return Number.isNaN(n.getTime())?t:n.toLocaleString()}function Ee(t){return t==null?"—":`${t<10?t.toFixed(1):Math.round(t)} ms`}function he(t){const[n,r]=h([null]);return R(()=>r([null]),[t]),{after:n[n.length-1],page:n.length,next:a=>a&&r(s=>[...s,a]),previous:()=>r(a=>a.length>1?a.slice(0,-1):a)}}function me({label:t,pages:n,pageSize:r,connection:o}){const{page:a,previous:s}=n,l=o.edges.length,i=o.totalCount,d=o.pageInfo.hasNextPage,c=()=>n.next(o.pageInfo.endCursor??null),p=i===0?0:(a-1)*r+1;return e("nav",{class:"pager","aria-label":`${t} pages`,children:[e("button",{type:"button",onClick:s,disabled:a<=1,children:"Previous page"}),e("span",{"aria-live":"polite",children:[p,"–",p+l-(l?1:0)," of ",i.toLocaleString()]}),e("button",{type:"button",onClick:c,disabled:!d,children:"Next page"})]})}const ft=50,Yr=["ADMIN","SPACE_ADMIN","MEMBER","VIEWER"];function eo({sub:t}){if(t==="new")return e(An,{tool:null});const[n,r]=t.split("/");return n&&r==="edit"?e(uo,{id:decodeURIComponent(n)}):n?e(so,{id:decodeURIComponent(n)}):e(no,{})}function fe(t){return(t??[]).map(n=>[n.id,n.label])}const zt=1e3;function Y(){const{api:t}=$(),n=Z(async()=>{const r=[];let o=null,a=0;for(;;){const s=(await t.request(Jr,{after:o})).spaces;if(r.push(...s.edges.map(({node:l})=>l)),a=s.totalCount,o=s.pageInfo.endCursor??null,!s.pageInfo.hasNextPage||o===null||s.edges.length===0||r.length>=zt)break}return{spaces:r.slice(0,zt),totalCount:a}},[]);return{...n,data:n.data?.spaces??null,totalCount:n.data?.totalCount??null}}function ct({spaces:t}){const n=t.data?.length??0;return t.totalCount===null||t.totalCount<=n?null:e("p",{class:"hint",role:"status",children:["Only the first ",n.toLocaleString()," of ",t.totalCount.toLocaleString()," spaces are offered here."]})}function ge({spaces:t}){return e(w,{children:[e(X,{error:t.error&&`The spaces could not be loaded: ${t.error}`,retry:t.reload}),e(ct,{spaces:t})]})}function to(t,n){const[r,o]=h(t);return R(()=>{const a=window.setTimeout(()=>o(t),n);return()=>window.clearTimeout(a)},[t,n]),r}function Le(t){const[n,r]=h(Pt(t)??"");return[n,a=>{r(a);const s=new URLSearchParams(window.location.search);a?s.set(t,a):s.delete(t);const l=s.toString();window.history.replaceState(null,"",`${window.location.pathname}${l?`?${l}`:""}`)}]}function no(){const{api:t,can:n}=$(),r=Y(),[o,a]=Le("search"),[s,l]=Le("type"),[i,d]=Le("status"),[c,p]=Le("binding"),[m,u]=Le("space"),_={search:to(o.trim(),250)||null,type:s||null,status:i||null,isGlobal:c===""?null:c==="global"},y=JSON.stringify([_,m]),b=he(y),S=Z(async()=>{if(m){const v=await t.request(Hr,{spaceId:m,first:ft,after:b.after,filter:_});if(!v.space)throw new Error(`Space ${m} is not visible to this key.`);return v.space.visibleTools}return(await t.request(Fr,{first:ft,after:b.after,filter:_})).tools},[y,b.after]),g=S.data;return e(w,{children:[e(x,{title:"Tools",children:n.manageSome&&e(T,{class:"button primary",to:"/tools/new",children:"Create tool"})}),e("form",{class:"filters",role:"search","aria-label":"Filter tools",onSubmit:v=>v.preventDefault(),children:[e(k,{label:"Search",name:"search",value:o,onInput:a,placeholder:"name, label or description"}),e(U,{label:"Type",name:"type",value:s,onChange:l,options:[["","Any type"],["BUILTIN","Builtin"],["CUSTOM","Custom (HTTP)"],["MCP","MCP"]]}),e(U,{label:"Status",name:"status",value:i,onChange:d,options:[["","Any status"],["ACTIVE","Active"],["DISABLED","Disabled"],["ARCHIVED","Archived"]]}),e(U,{label:"Space",name:"space",value:m,onChange:u,options:[["",n.admin?"Every space":"My space"],...fe(r.data)],hint:m?"Tools visible in this space.":void 0}),e(U,{label:"Binding",name:"scope",value:c,onChange:p,options:[["","Global and bound"],["global","Global only"],["bound","Bound only"]]})]}),e(it,{loads:[r,S]}),e(ct,{spaces:r}),g&&e("div",{"aria-busy":S.loading,children:[e("table",{class:"tools",children:[e("caption",{class:"sr-only",children:"Tools"}),e("thead",{children:e("tr",{children:[e("th",{scope:"col",children:"Name"}),e("th",{scope:"col",children:"Label"}),e("th",{scope:"col",children:"Type"}),e("th",{scope:"col",children:"Status"}),e("th",{scope:"col",children:"Visible in"})]})}),e("tbody",{children:g.edges.map(({node:v})=>e(ro,{tool:v},v.id))})]}),g.edges.length===0&&e("p",{class:"empty",children:"No tool matches."}),e(me,{label:"Tools",pages:b,pageSize:ft,connection:g})]})]})}function ro({tool:t}){return e("tr",{children:[e("td",{children:[e(T,{to:`/tools/${encodeURIComponent(t.id)}`,children:t.name}),t.driftedAt&&e(w,{children:[" ",e(E,{tone:"bad",children:"drifted"})]})]}),e("td",{children:t.label}),e("td",{children:e(E,{children:t.type})}),e("td",{children:e(E,{tone:J(t.status),children:t.status})}),e("td",{children:oo(t)})]})}function oo(t){if(t.isGlobal)return t.mcpServer?"every space (server is global)":"every space (global)";const n=t.boundSpaces.map(r=>r.name).join(", ");return t.mcpServer?`spaces of server ${t.mcpServer.name}`:n||"bound"}function so({id:t}){const{api:n}=$(),r=Z(()=>n.request(wn,{id:t}),[t]),o=r.data?.tool,a=new URLSearchParams(window.location.search).get("saved");return r.data&&!o?e(w,{children:[e(x,{title:"Tool not found"}),e("p",{children:["No tool ",e("code",{children:t})," is visible to this key. ",e(T,{to:"/tools",children:"Back to Tools"})]})]}):e(w,{children:[e(x,{title:o?`Tool ${o.name}`:"Tool",children:[e(T,{class:"button",to:"/tools",children:"All tools"}),o?.type==="CUSTOM"&&o.viewerCanManage&&e(T,{class:"button",to:`/tools/${encodeURIComponent(o.id)}/edit`,children:"Edit tool"})]}),e(X,{error:r.error,retry:r.reload}),a&&e(Re,{children:["Tool ",a==="created"?"created":"saved","."]}),o&&e(w,{children:[e(lo,{tool:o,onChanged:r.reload}),e("section",{"aria-labelledby":"tool-definition",children:[e("h2",{id:"tool-definition",children:"Definition"}),e("dl",{class:"facts",children:[e("dt",{children:"Label"}),e("dd",{children:o.label}),e("dt",{children:"Id"}),e("dd",{children:e("code",{children:o.id})}),e("dt",{children:"Type"}),e("dd",{children:o.type}),e("dt",{children:"Description"}),e("dd",{class:"prose",children:o.description}),o.endpoint&&e(w,{children:[e("dt",{children:"Endpoint"}),e("dd",{children:e("code",{children:o.endpoint})})]}),e("dt",{children:"Credentials"}),e("dd",{children:o.authType==="NONE"?"none":`${o.authType} (secret stored, never shown)`}),e("dt",{children:"Side effect"}),e("dd",{children:o.sideEffect}),e("dt",{children:"Version"}),e("dd",{children:o.version}),e("dt",{children:"Owner"}),e("dd",{children:o.owner??"—"}),e("dt",{children:"Tags"}),e("dd",{children:o.tags.length?o.tags.join(", "):"—"}),e("dt",{children:"Group"}),e("dd",{children:o.group??"—"}),o.driftedAt&&e(w,{children:[e("dt",{children:"Drift"}),e("dd",{children:[e(E,{tone:"bad",children:"drifted"})," the MCP server changed its description or schema on ",G(o.driftedAt),". Re-activating the tool accepts the change."]})]})]})]}),e("section",{"aria-labelledby":"tool-policies",children:[e("h2",{id:"tool-policies",children:"Policies"}),e("dl",{class:"facts",children:[e("dt",{children:"Timeout"}),e("dd",{children:[o.timeoutMs.toLocaleString()," ms per attempt"]}),e("dt",{children:"Retries"}),e("dd",{children:[o.maxRetries," ",o.sideEffect==="WRITE"?"(only with an idempotency key)":""]}),e("dt",{children:"Allowed roles"}),e("dd",{children:o.allowedRoles.length?o.allowedRoles.join(", "):"every role"})]})]}),e(io,{tool:o,onChanged:r.reload}),e("section",{"aria-labelledby":"tool-stats",children:[e("h2",{id:"tool-stats",children:"Calls"}),e("dl",{class:"facts",children:[e("dt",{children:"Calls"}),e("dd",{children:o.stats.calls.toLocaleString()}),e("dt",{children:"Failures"}),e("dd",{children:o.stats.failures.toLocaleString()}),e("dt",{children:"p50 latency"}),e("dd",{children:Ee(o.stats.p50LatencyMs)}),e("dt",{children:"p95 latency"}),e("dd",{children:Ee(o.stats.p95LatencyMs)}),e("dt",{children:"Last call"}),e("dd",{children:G(o.stats.lastCalledAt)})]}),e(ao,{value:o.stats.failuresByCode})]}),e("section",{"aria-labelledby":"tool-schemas",children:[e("h2",{id:"tool-schemas",children:"Schemas"}),e("h3",{children:"Input schema"}),e(Te,{label:"Input schema",value:o.inputSchema}),e("h3",{children:"Output schema"}),e(Te,{label:"Output schema",value:o.outputSchema})]}),e(co,{tool:o})]})]})}function ao({value:t}){const n=t&&typeof t=="object"?Object.entries(t):[];return n.length?e("table",{class:"compact",children:[e("caption",{children:"Failures by code"}),e("thead",{children:e("tr",{children:[e("th",{scope:"col",children:"Code"}),e("th",{scope:"col",children:"Failures"})]})}),e("tbody",{children:n.map(([r,o])=>e("tr",{children:[e("td",{children:e("code",{children:r})}),e("td",{children:o})]},r))})]}):e("p",{class:"muted",children:"No failures."})}function lo({tool:t,onChanged:n}){const{api:r}=$(),o=j(),a=async s=>{await o.run(async()=>(await r.request(Rt,{input:{id:t.id,status:s}})).setStatus)&&n()};return e("div",{class:"status-line",children:[e("span",{children:["Status ",e(E,{tone:J(t.status),children:t.status})]}),t.viewerCanManage&&t.status!=="ACTIVE"&&e("button",{type:"button",onClick:()=>a("ACTIVE"),disabled:o.busy,children:t.driftedAt?"Re-activate tool":"Enable tool"}),t.viewerCanManage&&t.status==="ACTIVE"&&e("button",{type:"button",onClick:()=>a("DISABLED"),disabled:o.busy,children:"Disable tool"}),e(te,{errors:o.errors,fields:[]})]})}function io({tool:t,onChanged:n}){const{api:r,can:o}=$(),a=Y(),s=t.mcpServer,l=(s?s.boundSpaces:t.boundSpaces).map(y=>y.id),[i,d]=h(l);R(()=>d(l),[l.join(",")]);const c=j(),[p,m]=h(!1),u=s?s.isGlobal:t.isGlobal,f=async y=>{y.preventDefault(),m(!1),await c.run(async()=>(await r.request(Wr,{input:{id:s?s.id:t.id,spaceIds:i}})).setSpaceBindings)&&(m(!0),n())},_=(s?s.boundSpaces:t.boundSpaces).map(y=>y.label).join(", ");return e("section",{"aria-labelledby":"tool-bindings",children:[e("h2",{id:"tool-bindings",children:"Bindings"}),e("p",{children:[u?e(w,{children:[e(E,{children:"global"})," no binding row: every space sees this tool"]}):e(w,{children:[e(E,{tone:"busy",children:"bound"})," only these spaces see it: ",_]}),s&&e(w,{children:[" ","— inherited from MCP server ",e("strong",{children:s.name})]}),"."]}),o.admin&&e("form",{class:"card form",onSubmit:f,"aria-label":s?`Bindings of MCP server ${s.name}`:"Bindings",children:[e($e,{legend:s?`Spaces bound to MCP server ${s.name}`:"Bound spaces (none checked: global)",name:"spaceIds",options:(a.data??[]).map(y=>({value:y.id,label:`${y.label} (${y.name})`})),selected:i,onChange:d,errors:c.errors}),e(ge,{spaces:a}),e(te,{errors:c.errors,fields:["spaceIds"]}),e("div",{class:"buttons",children:[e("button",{type:"submit",disabled:c.busy,children:"Save bindings"}),p&&e("span",{role:"status",children:"Bindings saved."})]})]})]})}function co({tool:t}){const{api:n,can:r,viewer:o}=$(),a=Y(),[s,l]=h(o.space?.id??""),[i,d]=h("{}"),[c,p]=h(null),[m,u]=h(null),[f,_]=h(!1);if(!r.invoke||t.status!=="ACTIVE")return null;const y=fe(a.data);return e("section",{"aria-labelledby":"tool-try",children:[e("h2",{id:"tool-try",children:"Try it"}),e("form",{class:"card form",onSubmit:async S=>{S.preventDefault();const g=Ye(i);if(g.problem){u(g.problem);return}_(!0),u(null);try{const v=await n.request(zr,{input:{spaceId:s||y[0]?.[0]||"",toolId:t.id,arguments:g.value??{}}});p(v.invokeTool)}catch(v){u(re(v))}finally{_(!1)}},children:[r.admin&&e(U,{label:"Call in space",name:"spaceId",value:s,onChange:l,options:y}),r.admin&&e(ge,{spaces:a}),e(Ue,{label:"Arguments (JSON)",name:"arguments",errors:m?[{field:["arguments"],code:"JSON",message:m}]:[],children:S=>e("textarea",{...S,class:"mono",rows:4,value:i,onInput:g=>d(g.currentTarget.value)})}),e("div",{class:"buttons",children:e("button",{type:"submit",disabled:f,children:"Call tool"})})]}),c&&e("div",{class:"result",role:"status",children:[e("p",{children:[e(E,{tone:J(c.status),children:c.status})," in ",Ee(c.latencyMs)," · trace ",e("code",{children:c.traceId})]}),c.error?e("p",{children:[e("code",{children:c.error.code})," ",c.error.message]}):e(Te,{label:"Result",value:c.data})]})]})}function uo({id:t}){const{api:n}=$(),r=Z(()=>n.request(wn,{id:t}),[t]);return r.error?e(X,{error:r.error,retry:r.reload}):r.data?r.data.tool?e(An,{tool:r.data.tool}):e("p",{children:["No tool ",t," is visible to this key."]}):e("p",{"aria-busy":"true",children:"Loading…"})}const po=[["NONE","None"],["BEARER","Bearer token"],["API_KEY","API key header"],["HEADER","Custom header"],["OAUTH_CLIENT_CREDENTIALS","OAuth client credentials"]],ho=et({type:"object",properties:{orderId:{type:"string",description:"The order number."}},required:["orderId"]});function Jt(t,n){const r=Ye(t);return r.problem?r.problem:r.value===null?n?"An input schema is required.":null:typeof r.value!="object"||Array.isArray(r.value)?"A JSON Schema is a JSON object.":n&&r.value.type!=="object"?'The input schema must have "type": "object".':null}function An({tool:t}){const{api:n,can:r,viewer:o}=$(),a=Y(),s=t===null,[l,i]=h(t?.name??""),[d,c]=h(t?.label??""),[p,m]=h(t?.description??""),[u,f]=h(t?et(t.inputSchema):ho),[_,y]=h(t?.outputSchema?et(t.outputSchema):""),[b,S]=h(t?.endpoint??""),[g,v]=h(t?.authType??"NONE"),[C,A]=h(""),[M,W]=h(""),[O,P]=h(""),[D,V]=h(""),[Q,z]=h(t?.sideEffect??"READ"),[ce,Oe]=h(t?String(t.timeoutMs):""),[oe,q]=h(t?String(t.maxRetries):""),[ye,de]=h(t?.tags.join(", ")??""),[Ie,dt]=h(t?.group??""),[ut,N]=h(t?.allowedRoles??[]),[se,ve]=h(t?.version??""),[Ce,ae]=h(t?.owner??""),[le,ue]=h(!r.admin&&o.space?[o.space.id]:[]),K=j(),Ke=De(()=>Jt(u,!0),[u]),Ve=De(()=>Jt(_,!1),[_]);if(!r.manageSome)return e("p",{children:"This key cannot create or change tools."});const pt=[...Ke?[{field:["input","inputSchema"],code:"INVALID_JSON",message:Ke}]:[],...Ve?[{field:["input","outputSchema"],code:"INVALID_JSON",message:Ve}]:[]],F=[...pt,...K.errors.filter(pe=>!pt.some(Fe=>Fe.field.join()===pe.field?.join()))],Nn=s||g!==t?.authType||M!==""||C!==""||O!==""||D!=="",Ln=async pe=>{if(pe.preventDefault(),pt.length)return;const Fe=Nn?{type:g,headerName:C||null,secret:M||null,tokenUrl:O||null,clientId:D||null}:null,Nt={label:d,description:p,inputSchema:Ye(u).value,outputSchema:Ye(_).value,endpoint:b,sideEffect:Q,timeoutMs:ce?Number(ce):null,maxRetries:oe?Number(oe):null,tags:ye.split(",").map(Pe=>Pe.trim()).filter(Boolean),group:Ie||(s?null:""),allowedRoles:ut,version:se||null,owner:Ce||(s?null:"")};if(s){const Pe={...Nt,name:l,auth:Fe,spaceIds:le.length?le:null},Ne=await K.run(async()=>(await n.request(jr,{input:Pe})).createTool);Ne?.tool&&_e(ie(`/tools/${encodeURIComponent(Ne.tool.id)}?saved=created`))}else{const Pe={...Nt,id:t.id,auth:Fe},Ne=await K.run(async()=>(await n.request(Gr,{input:Pe})).updateTool);Ne?.tool&&_e(ie(`/tools/${encodeURIComponent(Ne.tool.id)}?saved=updated`))}W("")},xn=["name","label","description","inputSchema","outputSchema","endpoint","auth","auth.type","auth.headerName","auth.secret","auth.tokenUrl","auth.clientId","sideEffect","timeoutMs","maxRetries","tags","group","allowedRoles","version","owner","spaceIds"];return e(w,{children:[e(x,{title:s?"Create tool":`Edit tool ${t.name}`}),e(we,{wide:!0,noValidate:!0,onSubmit:Ln,mutation:K,fields:xn,submitLabel:s?"Create tool":"Save tool",cancel:s?"/tools":`/tools/${encodeURIComponent(t.id)}`,children:[e("p",{class:"hint",children:"A CUSTOM tool is an HTTP endpoint Quiver POSTs the arguments to, with the stored credentials."}),s?e(k,{label:"Name",name:"name",value:l,onInput:i,errors:F,hint:"For the model: ^[a-zA-Z0-9_-]{1,64}$, unique where it is visible."}):e("p",{children:["Name ",e("code",{children:t.name})," (fixed)"]}),e(k,{label:"Label",name:"label",value:d,onInput:c,errors:F}),e(ne,{label:"Description",name:"description",value:p,onInput:m,errors:F,rows:3,hint:"Written for the model: what it does, when to use it, when not to."}),e(k,{label:"Endpoint",name:"endpoint",value:b,onInput:S,errors:F,type:"url",placeholder:"https://…"}),e(ne,{label:"Input schema",name:"inputSchema",value:u,onInput:f,errors:F,rows:10,mono:!0,hint:'JSON Schema 2020-12 of the arguments, with "type": "object".'}),e(ne,{label:"Output schema",name:"outputSchema",value:_,onInput:y,errors:F,rows:5,mono:!0,hint:"Optional JSON Schema of the result."}),e("fieldset",{children:[e("legend",{children:"Credentials"}),!s&&t.authType!=="NONE"&&e("p",{class:"hint",children:["A ",t.authType," secret is stored and never shown. Leave these fields alone to keep it; credentials are replaced as a whole."]}),e(U,{label:"Authentication",name:"auth.type",value:g,onChange:v,options:po,errors:F}),(g==="API_KEY"||g==="HEADER")&&e(k,{label:"Header name",name:"auth.headerName",value:C,onInput:A,errors:F}),g==="OAUTH_CLIENT_CREDENTIALS"&&e(w,{children:[e(k,{label:"Token URL",name:"auth.tokenUrl",value:O,onInput:P,errors:F,type:"url"}),e(k,{label:"Client id",name:"auth.clientId",value:D,onInput:V,errors:F})]}),g!=="NONE"&&e(k,{label:"Secret",name:"auth.secret",value:M,onInput:W,errors:F,type:"password",autoComplete:"new-password",hint:s?"Write-only: stored encrypted, never shown again.":"Write-only: type a new secret to replace the stored one."})]}),e("fieldset",{children:[e("legend",{children:"Policies"}),e(U,{label:"Side effect",name:"sideEffect",value:Q,onChange:z,errors:F,options:[["READ","READ (safe to retry)"],["WRITE","WRITE (retried only with an idempotency key)"]]}),e(k,{label:"Timeout (ms)",name:"timeoutMs",value:ce,onInput:Oe,errors:F,type:"number",placeholder:"10000"}),e(k,{label:"Max retries",name:"maxRetries",value:oe,onInput:q,errors:F,type:"number",placeholder:"1"}),e($e,{legend:"Allowed roles (none checked: every role)",name:"allowedRoles",options:Yr.map(pe=>({value:pe,label:pe})),selected:ut,onChange:N,errors:F})]}),e("fieldset",{children:[e("legend",{children:"Catalog"}),e(k,{label:"Tags",name:"tags",value:ye,onInput:de,errors:F,hint:"Comma-separated."}),e(k,{label:"Group",name:"group",value:Ie,onInput:dt,errors:F}),e(k,{label:"Version",name:"version",value:se,onInput:ve,errors:F,placeholder:"1.0.0"}),e(k,{label:"Owner",name:"owner",value:Ce,onInput:ae,errors:F})]}),s&&r.admin&&e($e,{legend:"Bind to spaces (none checked: global)",name:"spaceIds",options:(a.data??[]).map(pe=>({value:pe.id,label:`${pe.label} (${pe.name})`})),selected:le,onChange:ue,errors:F}),s&&r.admin&&e(ge,{spaces:a})]})]})}const Zt=50;function mo({sub:t}){return t==="new"?e($n,{agent:null}):t?e(go,{id:decodeURIComponent(t)}):e(fo,{})}function fo(){const{api:t,can:n}=$(),r=he("agents"),o=Z(()=>t.request(rr,{first:Zt,after:r.after}),[r.after]),a=o.data?.agents;return e(w,{children:[e(x,{title:"Agents",children:n.manageSome&&e(T,{class:"button primary",to:"/agents/new",children:"Create agent"})}),e(X,{error:o.error,retry:o.reload}),a&&e(w,{children:[e("table",{children:[e("caption",{class:"sr-only",children:"Agents"}),e("thead",{children:e("tr",{children:[e("th",{scope:"col",children:"Name"}),e("th",{scope:"col",children:"Space"}),e("th",{scope:"col",children:"Model"}),e("th",{scope:"col",children:"Status"}),e("th",{scope:"col",children:"Changed"})]})}),e("tbody",{children:a.edges.map(({node:s})=>e("tr",{children:[e("td",{children:e(T,{to:`/agents/${encodeURIComponent(s.id)}`,children:s.name})}),e("td",{children:s.space.name}),e("td",{children:e("code",{children:s.model})}),e("td",{children:e(E,{tone:J(s.status),children:s.status})}),e("td",{children:G(s.updatedAt)})]},s.id))})]}),a.edges.length===0&&e("p",{class:"empty",children:"No agent yet."}),e(me,{label:"Agents",pages:r,pageSize:Zt,connection:a})]})]})}function go({id:t}){const{api:n,can:r}=$(),o=Z(()=>n.request(or,{id:t}),[t]),a=o.data?.agent,[s,l]=h(!1);if(o.data&&!a)return e(w,{children:[e(x,{title:"Agent not found"}),e("p",{children:["No agent ",e("code",{children:t})," is visible to this key. ",e(T,{to:"/agents",children:"Back to Agents"})]})]});const i=a?r.manage(a.space.id):!1;return e(w,{children:[e(x,{title:a?`Agent ${a.name}`:"Agent",children:[e(T,{class:"button",to:"/agents",children:"All agents"}),i&&!s&&e("button",{type:"button",onClick:()=>l(!0),children:"Edit manifest"})]}),e(X,{error:o.error,retry:o.reload}),a&&s&&e($n,{agent:a,onSaved:()=>{l(!1),o.reload()},onCancel:()=>l(!1)}),a&&!s&&e(w,{children:[e("dl",{class:"facts",children:[e("dt",{children:"Space"}),e("dd",{children:a.space.name}),e("dt",{children:"Model"}),e("dd",{children:e("code",{children:a.model})}),e("dt",{children:"Status"}),e("dd",{children:e(E,{tone:J(a.status),children:a.status})}),e("dt",{children:"Max steps"}),e("dd",{children:a.maxSteps}),e("dt",{children:"Knowledge bases"}),e("dd",{children:a.mountedKnowledgeBases.map(d=>d.name).join(", ")||"—"}),e("dt",{children:"Tools"}),e("dd",{children:a.activatedTools.map(d=>d.name).join(", ")||"—"}),e("dt",{children:"Skills"}),e("dd",{children:a.boundSkillReferences.join(", ")||"—"}),e("dt",{children:"System prompt"}),e("dd",{class:"prose",children:a.systemPrompt}),e("dt",{children:"Output format"}),e("dd",{class:"prose",children:a.outputFormat??"—"})]}),e(_o,{agentId:a.id}),r.invoke&&a.status==="ACTIVE"&&e(yo,{agentId:a.id,onFinished:o.reload}),e(vo,{agent:a})]})]})}function bo(t){return t.split(/[\n,]/).map(n=>n.trim()).filter(Boolean)}function $n({agent:t,onSaved:n,onCancel:r}){const{api:o,can:a,viewer:s}=$(),l=Y(),[i,d]=h(t?.space.id??s.space?.id??""),[c,p]=h(t?.name??""),[m,u]=h(t?.model??""),[f,_]=h(t?.systemPrompt??""),[y,b]=h(String(t?.maxSteps??5)),[S,g]=h(t?.outputFormat??""),[v,C]=h(t?.mountedKnowledgeBases.map(q=>q.id)??[]),[A,M]=h(t?.activatedTools.map(q=>q.id)??[]),[W,O]=h(t?.boundSkillReferences.join(`
`)??""),[P,D]=h([]),V=i||l.data?.find(q=>!q.isSystem)?.id||"",Q=Z(async()=>V?(await o.request(sr,{spaceId:V})).space:null,[V]),z=j();if(!a.manageSome)return e("p",{children:"This key cannot create or change agents."});const ce=Q.data,oe=e(we,{label:"Agent manifest",wide:!0,onSubmit:async q=>{q.preventDefault();const ye={name:c,model:m,systemPrompt:f,maxSteps:Number(y)||null,outputFormat:S||(t?"":null),mountedKnowledgeBaseIds:v,activatedToolIds:A,boundSkillIds:bo(W)};if(t){const de=await z.run(async()=>(await o.request(lr,{input:{id:t.id,...ye}})).updateAgent);de&&(D(de.notices),n?.())}else{const de=await z.run(async()=>(await o.request(ar,{input:{...ye,spaceId:V,maxSteps:Number(y)||5}})).createAgent);de?.agent&&_e(ie(`/agents/${encodeURIComponent(de.agent.id)}`))}},mutation:z,fields:["spaceId","name","model","systemPrompt","maxSteps","outputFormat","mountedKnowledgeBaseIds","activatedToolIds","boundSkillIds"],submitLabel:t?"Save manifest":"Create agent",cancel:t&&r?r:"/agents",notice:P.length>0&&e(Re,{children:e("ul",{class:"plain",children:P.map(q=>e("li",{children:q},q))})}),children:[!t&&a.admin&&e(U,{label:"Space",name:"spaceId",value:V,onChange:d,errors:z.errors,options:fe(l.data)}),!t&&a.admin&&e(ge,{spaces:l}),e(k,{label:"Name",name:"name",value:c,onInput:p,errors:z.errors}),e(k,{label:"Model",name:"model",value:m,onInput:u,errors:z.errors,hint:"The model name sent to the OpenAI-compatible endpoint."}),e(ne,{label:"System prompt",name:"systemPrompt",value:f,onInput:_,errors:z.errors,rows:6}),e(k,{label:"Max steps",name:"maxSteps",value:y,onInput:b,errors:z.errors,type:"number"}),e(ne,{label:"Output format",name:"outputFormat",value:S,onInput:g,errors:z.errors,rows:2}),ce&&e(w,{children:[e($e,{legend:"Knowledge bases",name:"mountedKnowledgeBaseIds",options:ce.knowledgeBases.edges.map(({node:q})=>({value:q.id,label:q.label})),selected:v,onChange:C,errors:z.errors}),e($e,{legend:"Tools",name:"activatedToolIds",options:ce.visibleTools.edges.map(({node:q})=>({value:q.id,label:`${q.name} — ${q.label}`})),selected:A,onChange:M,errors:z.errors}),e(ne,{label:"Skills",name:"boundSkillIds",value:W,onInput:O,errors:z.errors,rows:3,mono:!0,hint:`One skill id a line; pin a version with @, e.g. sk_email_draft@1.2.0. Visible here: ${ce.skills.edges.map(({node:q})=>q.id).join(", ")||"none"}.`})]})]});return t?oe:e(w,{children:[e(x,{title:"Create agent"}),oe]})}function _o({agentId:t}){const{api:n}=$(),[r,o]=h(""),[a,s]=h(null),[l,i]=h(null),d=async p=>{p.preventDefault(),i(null);try{s((await n.request(ir,{agentId:t,message:r||"(preview)"})).previewPrompt)}catch(m){i(re(m))}},c=a?Math.min(100,Math.round(a.charCount/Math.max(1,a.budgetChars)*100)):0;return e("section",{"aria-labelledby":"preview-title",children:[e("h2",{id:"preview-title",children:"Prompt preview"}),e("form",{class:"filters",onSubmit:d,"aria-label":"Preview the prompt",children:[e(k,{label:"Message to assemble for",name:"previewMessage",value:r,onInput:o}),e("button",{type:"submit",children:"Preview prompt"})]}),l&&e("p",{role:"alert",children:l}),a&&e("div",{children:[e("p",{children:[a.charCount.toLocaleString()," of ",a.budgetChars.toLocaleString()," characters (",c,"% of the budget), about"," ",a.tokenEstimate.toLocaleString()," tokens."]}),e("meter",{min:0,max:a.budgetChars,value:a.charCount,"aria-label":"Prompt budget used"}),a.warnings.map(p=>e("p",{class:"error-text",children:p},p)),e("ol",{class:"sections",children:a.sections.map((p,m)=>e("li",{class:"card",children:[e("p",{children:[e(E,{children:p.kind})," ",p.source&&e("code",{children:p.source})," ",p.truncated&&e(E,{tone:"bad",children:"cut to fit"})]}),p.reason&&e("p",{class:"muted",children:p.reason}),e("pre",{class:"json",children:p.text})]},m))})]})]})}function yo({agentId:t,onFinished:n}){const{api:r}=$(),[o,a]=h(""),[s,l]=h([]),[i,d]=h(null),[c,p]=h(""),m=j(),u=ee(null);R(()=>()=>u.current?.(),[]);const[f,_]=h("connecting");R(()=>r.onSocketState(_),[r]);const y=ee(!1),b=i?.id??null,S=i?.status==="RUNNING";return R(()=>{f==="reconnecting"&&(y.current=!0),!(f!=="connected"||!y.current||b===null)&&(y.current=!1,r.request(Gt,{id:b}).then(v=>{const C=v.agentRun;!C||C.id!==b||(d(C),C.status!=="RUNNING"&&(u.current?.(),u.current=null,n()))},()=>{}))},[r,f,b,n]),e("section",{"aria-labelledby":"invoke-title",children:[e("h2",{id:"invoke-title",children:"Run the agent"}),e("form",{class:"card form",onSubmit:async v=>{v.preventDefault(),u.current?.(),l([]),p(""),d(null);const A=(await m.run(async()=>(await r.request(cr,{input:{agentId:t,message:o,async:!0}})).invokeAgent))?.run;A&&(d(A),u.current=r.subscribe(dr,{runId:A.id},{next:M=>{const W=M.agentRunEvents;l(O=>[...O,W]),W.delta&&p(O=>O+W.delta),W.kind==="FINISHED"&&(r.request(Gt,{id:A.id}).then(O=>O.agentRun&&d(O.agentRun),()=>{}),n())},error:M=>m.setErrors([{field:null,code:"STREAM",message:M.message}])}))},children:[e(ne,{label:"Message",name:"message",value:o,onInput:a,errors:m.errors,rows:3}),e(te,{errors:m.errors,fields:["message"]}),e("button",{type:"submit",class:"primary",disabled:m.busy,children:"Run agent"})]}),i&&e("div",{class:"card",children:[e("p",{children:["Run ",e("code",{children:i.id})," ",e(E,{tone:J(i.status),children:i.status})]}),S&&f!=="connected"&&e("p",{class:"muted",role:"status",children:f==="reconnecting"?"Reconnecting… the run goes on on the server; it is read again when the connection is back.":"Connecting…"}),e("ol",{class:"events","aria-label":"Run events","aria-live":"polite",children:s.map((v,C)=>e("li",{children:[e(E,{children:v.kind})," ",e("span",{class:"muted",children:G(v.at)}),v.step!==null&&v.step!==void 0&&e(w,{children:[" step ",v.step]}),v.toolId&&e(w,{children:[" ","tool ",e("code",{children:v.toolId})]}),v.toolCall&&e(w,{children:[" ",e(E,{tone:J(v.toolCall.status),children:v.toolCall.status})," ",Ee(v.toolCall.latencyMs)]}),v.kind==="FINISHED"&&v.run.error&&e(w,{children:[" ",v.run.error.message]})]},C))}),(i.output||c)&&e(w,{children:[e("h3",{children:"Answer"}),e("p",{class:"prose answer",children:i.output??c})]}),i.error&&e("p",{class:"error-text",children:i.error.message})]})]})}function vo({agent:t}){const n=t.runs.edges.map(({node:o})=>o),r=Pt("run");return e("section",{"aria-labelledby":"runs-title",children:[e("h2",{id:"runs-title",children:["Run history (",t.runs.totalCount,")"]}),n.length===0&&e("p",{class:"empty",children:"No run yet."}),n.map(o=>e("details",{id:o.id,class:"card run",open:o.id===r,children:[e("summary",{children:[e(E,{tone:J(o.status),children:o.status})," ",G(o.startedAt)," — ",o.input.slice(0,80)]}),e("dl",{class:"facts",children:[e("dt",{children:"Run"}),e("dd",{children:e("code",{children:o.id})}),e("dt",{children:"Steps"}),e("dd",{children:o.steps}),e("dt",{children:"Tokens"}),e("dd",{children:[o.promptTokens??"—"," in, ",o.completionTokens??"—"," out"]}),e("dt",{children:"Answer"}),e("dd",{class:"prose",children:o.output??o.error?.message??"—"})]}),e("table",{class:"compact",children:[e("caption",{children:"Tool calls"}),e("thead",{children:e("tr",{children:[e("th",{scope:"col",children:"Tool"}),e("th",{scope:"col",children:"Status"}),e("th",{scope:"col",children:"Latency"}),e("th",{scope:"col",children:"Arguments"})]})}),e("tbody",{children:o.toolCalls.map(a=>e("tr",{children:[e("td",{children:e("code",{children:a.toolId})}),e("td",{children:[e(E,{tone:J(a.status),children:a.status})," ",a.error?.code]}),e("td",{children:Ee(a.latencyMs)}),e("td",{children:e(Te,{label:`Arguments of ${a.id}`,value:a.arguments})})]},a.id))})]})]},o.id))]})}const Qt=50;function So(t){return t==="ACTIVE"?"good":"bad"}function wo(){const{api:t,can:n,viewer:r}=$(),[o,a]=h("ACTIVE"),[s,l]=h(!1),[i,d]=h(null),c=he(o),p=Z(()=>t.request(ur,{first:Qt,after:c.after,state:o||null}),[o,c.after]),m=p.data?.apiKeys;return e(w,{children:[e(x,{title:"API keys",children:n.manageSome&&!s&&e("button",{type:"button",class:"primary",onClick:()=>l(!0),children:"Create API key"})}),e("dl",{class:"facts",children:[e("dt",{children:"Signed in with"}),e("dd",{children:[e("code",{children:r.keyId})," ",r.keyLabel?`“${r.keyLabel}”`:""," (",r.role,")"]})]}),!n.manageSome&&e("p",{children:"Only ADMIN and SPACE_ADMIN keys manage keys; ask one of them for another key."}),s&&e(Co,{onDone:u=>{l(!1),u&&(d(u),p.reload())}}),i&&e("div",{class:"notice secret",role:"status",children:[e("p",{children:["Key ",e("code",{children:i.id})," created. Copy its secret now: it is shown only this once and is not stored."]}),e("label",{for:"new-secret",children:"Secret"}),e("input",{id:"new-secret",readOnly:!0,value:i.secret,onFocus:u=>u.currentTarget.select()}),e("div",{class:"buttons",children:[e("button",{type:"button",onClick:()=>{navigator.clipboard?.writeText(i.secret)},children:"Copy secret"}),e("button",{type:"button",onClick:()=>d(null),children:"Done"})]})]}),n.manageSome&&e(w,{children:[e("form",{class:"filters","aria-label":"Filter keys",onSubmit:u=>u.preventDefault(),children:e(U,{label:"State",name:"state",value:o,onChange:a,options:[["","Any state"],["ACTIVE","Active"],["EXPIRED","Expired"],["REVOKED","Revoked"]]})}),e(X,{error:p.error,retry:p.reload}),m&&e(w,{children:[e("table",{children:[e("caption",{class:"sr-only",children:"API keys"}),e("thead",{children:e("tr",{children:[e("th",{scope:"col",children:"Label"}),e("th",{scope:"col",children:"Id"}),e("th",{scope:"col",children:"Role"}),e("th",{scope:"col",children:"Space"}),e("th",{scope:"col",children:"Created"}),e("th",{scope:"col",children:"Expires"}),e("th",{scope:"col",children:"Last used"}),e("th",{scope:"col",children:"State"}),e("th",{scope:"col",children:"Action"})]})}),e("tbody",{children:m.edges.map(({node:u})=>e(Io,{apiKey:u,isCurrent:u.id===r.keyId,onChanged:p.reload},u.id))})]}),m.edges.length===0&&e("p",{class:"empty",children:"No key in this state."}),e(me,{label:"API keys",pages:c,pageSize:Qt,connection:m})]})]})]})}function Io({apiKey:t,isCurrent:n,onChanged:r}){const{api:o}=$(),[a,s]=h(!1),l=j(),i=t.label??t.id,d=async()=>{const c=await l.run(async()=>(await o.request(hr,{input:{id:t.id}})).revokeApiKey);s(!1),c&&r()};return e("tr",{children:[e("td",{children:[t.label??"—"," ",n&&e(E,{tone:"busy",children:"in use here"})]}),e("td",{children:e("code",{children:t.id})}),e("td",{children:t.role}),e("td",{children:t.space?.name??"every space"}),e("td",{children:G(t.createdAt)}),e("td",{children:G(t.expiresAt)}),e("td",{children:G(t.lastUsedAt)}),e("td",{children:e(E,{tone:So(t.state),children:t.state})}),e("td",{children:[t.state==="ACTIVE"&&(a?e("div",{class:"buttons",children:[e("span",{children:[n?"This signs the console out. ":"","Revoke?"]}),e("button",{type:"button",class:"danger",onClick:d,disabled:l.busy,children:["Confirm revoke ",i]}),e("button",{type:"button",onClick:()=>s(!1),children:"Keep"})]}):e("button",{type:"button",onClick:()=>s(!0),"aria-label":`Revoke ${i}`,children:"Revoke"})),e(te,{errors:l.errors,fields:[]})]})]})}function Co({onDone:t}){const{api:n,can:r,viewer:o}=$(),a=Y(),s=r.admin?["ADMIN","SPACE_ADMIN","MEMBER","VIEWER"]:["SPACE_ADMIN","MEMBER","VIEWER"],[l,i]=h("MEMBER"),[d,c]=h(o.space?.id??""),[p,m]=h(""),[u,f]=h(""),_=j(),y=a.data?.[0]?.id??"";return e(we,{label:"Create API key",onSubmit:async S=>{S.preventDefault();const g=await _.run(async()=>(await n.request(pr,{input:{role:l,spaceId:l==="ADMIN"?null:d||y||null,label:p||null,expiresAt:u?new Date(u).toISOString():null}})).createApiKey);g?.apiKey&&g.secret&&t({id:g.apiKey.id,secret:g.secret})},mutation:_,fields:["role","spaceId","label","expiresAt"],submitLabel:"Create key",cancel:()=>t(null),children:[e(U,{label:"Role",name:"role",value:l,onChange:i,errors:_.errors,options:s.map(S=>[S,S])}),r.admin&&l!=="ADMIN"&&e(U,{label:"Space",name:"spaceId",value:d,onChange:c,errors:_.errors,options:fe(a.data)}),r.admin&&l!=="ADMIN"&&e(ge,{spaces:a}),e(k,{label:"Label",name:"label",value:p,onInput:m,errors:_.errors,hint:"A note to recognise the key by."}),e(k,{label:"Expires",name:"expiresAt",value:u,onInput:f,errors:_.errors,type:"datetime-local",hint:"Your local time; empty: never."})]})}const Xt=3e3,ko=3e4,Ao=1e4,$o=2e3,gt=50,Tn="quiver.approvals.space",It="quiver:approvals-space",Ct="quiver:approvals-count";function tt(){return window.localStorage.getItem(Tn)??""}function To(t){tt()!==t&&(window.localStorage.setItem(Tn,t),window.dispatchEvent(new Event(It)))}function Eo(t){window.dispatchEvent(new CustomEvent(Ct,{detail:t}))}function En(){const[t,n]=h(()=>document.visibilityState==="visible");return R(()=>{const r=()=>n(document.visibilityState==="visible");return document.addEventListener("visibilitychange",r),()=>document.removeEventListener("visibilitychange",r)},[]),t}function Ro(t,n){const r=En(),[o,a]=h(!1);R(()=>{if(!r){a(!0);return}o&&(a(!1),t());const s=window.setInterval(t,n);return()=>window.clearInterval(s)},[r,t,n,o])}function Do(t,n){const{api:r}=$(),[o,a]=h("connecting"),[s,l]=h(!1);R(()=>r.onSocketState(a),[r]);const i=o==="connected";return R(()=>{if(t)return l(!1),r.subscribe(_r,{spaceId:t},{next:()=>n(),error:()=>l(!0),complete:()=>l(!0)})},[r,t,n]),R(()=>{i&&n()},[i,n]),!!t&&i&&!s}function Po(t){const[n,r]=h(()=>Date.now());return R(()=>{const o=window.setInterval(()=>r(Date.now()),t);return()=>window.clearInterval(o)},[t]),n}function Yt(t){const n=Math.max(0,Math.floor(t/1e3));if(n<60)return`${n} s`;const r=Math.floor(n/60);if(r<60)return`${r} min`;const o=Math.floor(r/60);if(o<24)return r%60?`${o} h ${r%60} min`:`${o} h`;const a=Math.floor(o/24);return o%24?`${a} d ${o%24} h`:`${a} d`}function No(){const{api:t,viewer:n,can:r}=$(),o=Y(),a=Pt("space"),[s,l]=h(a??n.space?.id??tt()),i=fe(o.data),d=o.data===null||i.some(([C])=>C===s)?s:i[0]?.[0]??"",c=he(d),[p,m]=h(null);R(()=>{d&&To(d)},[d]);const u=C=>{l(C),m(null);const A=new URLSearchParams(window.location.search);A.set("space",C),window.history.replaceState(null,"",`${window.location.pathname}?${A.toString()}`)},f=Z(async()=>{if(!d)return null;const C=await t.request(mr,{spaceId:d,first:gt,after:c.after});return{spaceId:d,connection:C.pendingApprovals}},[d,c.after]),_=Do(d,f.reload);Ro(f.reload,_?ko:Xt);const y=Po(1e3),b=f.data&&f.data.spaceId===d?f.data.connection:null,S=b?.edges.filter(({node:C})=>!C.approval||Date.parse(C.approval.expiresAt)>y),g=b&&S&&{...b,edges:S,totalCount:b.totalCount-(b.edges.length-S.length)};R(()=>{f.data&&Eo({spaceId:f.data.spaceId,count:f.data.connection.totalCount})},[f.data]);const v=r.manage(d);return e(w,{children:[e(x,{title:"Approvals"}),e("form",{class:"filters","aria-label":"Filter approvals",onSubmit:C=>C.preventDefault(),children:e(U,{label:"Space",name:"space",value:d,onChange:u,options:i})}),e("p",{class:"hint",children:["Tool calls of agent runs that wait for a person, oldest first; the list follows new requests and decisions by itself."," ",v?"Approved, a call runs and its run continues; rejected, it does not run and the model is told why.":"Read only: a SPACE_ADMIN of this space or an ADMIN decides."]}),e(it,{loads:[o,f]}),e(ct,{spaces:o}),p&&e(Re,{children:p}),e("p",{class:"muted",children:_?"Live: requests and decisions appear as they happen.":`Not live: checking every ${Xt/1e3} s while this page is visible.`}),g&&e(w,{children:[e("p",{class:"muted","aria-live":"polite",children:g.totalCount===0?"Nothing waits for a decision in this space.":`${g.totalCount.toLocaleString()} call${g.totalCount===1?"":"s"} waiting.`}),g.edges.map(({node:C})=>e(Lo,{call:C,now:y,mayDecide:v,onDecided:A=>{m(A),f.reload()}},C.id)),g.totalCount>gt&&e(me,{label:"Approvals",pages:c,pageSize:gt,connection:g})]})]})}function Lo({call:t,now:n,mayDecide:r,onDecided:o}){const{api:a}=$(),[s,l]=h(""),i=j(),d=t.tool?.name??t.toolId,c=t.approval?Date.parse(t.approval.requestedAt):Number.NaN,p=t.approval?Date.parse(t.approval.expiresAt):Number.NaN,m=i.errors.map(f=>lt([f],"reason").length?{...f,field:[...(f.field??[]).slice(0,-1),"comment"]}:f),u=async f=>{const _=s.trim()?s:null,y=f?await i.run(async()=>(await a.request(gr,{input:{toolCallId:t.id,comment:_}})).approveToolCall):await i.run(async()=>(await a.request(br,{input:{toolCallId:t.id,reason:_}})).rejectToolCall);if(y){const b=y.run?` Run ${y.run.id} is ${y.run.status}.`:"";o(`${f?"Approved":"Rejected"} ${d} (${t.id}).${b}`)}};return e("section",{class:"card approval","aria-label":`Approval ${t.id}`,children:[e("h2",{children:[e("code",{children:d})," ",t.agent&&e("span",{class:"muted",children:["for agent ",t.agent.name]})]}),e("dl",{class:"facts",children:[e("dt",{children:"Tool"}),e("dd",{children:[e(T,{to:`/tools/${encodeURIComponent(t.toolId)}`,children:t.tool?.label??t.toolId})," ",e("code",{class:"muted",children:t.toolId})]}),e("dt",{children:"Agent"}),e("dd",{children:t.agent?e(T,{to:`/agents/${encodeURIComponent(t.agent.id)}`,children:t.agent.name}):"—"}),e("dt",{children:"Run"}),e("dd",{children:t.run&&t.agent?e(w,{children:[e(T,{to:`/agents/${encodeURIComponent(t.agent.id)}?run=${encodeURIComponent(t.run.id)}`,"aria-label":`Run ${t.run.id}`,children:e("code",{children:t.run.id})})," ",e(E,{tone:J(t.run.status),children:t.run.status})]}):t.run?.id??"—"}),e("dt",{children:"Call"}),e("dd",{children:e("code",{children:t.id})}),e("dt",{children:"Requested"}),e("dd",{children:[G(t.approval?.requestedAt),Number.isFinite(c)&&e(w,{children:[" · waiting ",Yt(n-c)]})]}),e("dt",{children:"Expires"}),e("dd",{children:[G(t.approval?.expiresAt),Number.isFinite(p)&&(p>n?e(w,{children:[" · in ",Yt(p-n)]}):e(w,{children:" · expired"}))]})]}),e("h3",{children:"Proposed arguments"}),e(Te,{label:`Proposed arguments of ${t.id}`,value:t.arguments}),r&&e("form",{class:"decision","aria-label":`Decide on ${t.id}`,onSubmit:f=>f.preventDefault(),children:[e(ne,{label:"Comment",name:"comment",value:s,onInput:l,errors:m,rows:2,hint:`Optional: kept on the call, and told to the model when rejected. ${s.length.toLocaleString()} of ${$o.toLocaleString()} characters.`}),e(te,{errors:m,fields:["comment"]}),e("div",{class:"buttons",children:[e("button",{type:"button",class:"primary",disabled:i.busy,onClick:()=>{u(!0)},children:"Approve"}),e("button",{type:"button",class:"danger",disabled:i.busy,onClick:()=>{u(!1)},children:"Reject"})]})]})]})}function xo(){const{api:t,viewer:n,can:r}=$(),[o,a]=h(tt),s=n.space?.id??o,l=s!==""&&r.manage(s),i=En(),[d,c]=h(null);if(R(()=>{const m=()=>a(tt());return window.addEventListener(It,m),()=>window.removeEventListener(It,m)},[]),R(()=>{if(!l||!i)return;let m=!0;const u=()=>t.request(fr,{spaceId:s}).then(y=>m&&c({spaceId:s,count:y.pendingApprovals.totalCount}),()=>{});u();const f=window.setInterval(()=>{u()},Ao),_=y=>{const b=y.detail;b.spaceId===s&&c(b)};return window.addEventListener(Ct,_),()=>{m=!1,window.clearInterval(f),window.removeEventListener(Ct,_)}},[t,s,l,i]),!l||d===null||d.spaceId!==s||d.count===0)return null;const p=`${d.count} pending approval${d.count===1?"":"s"}`;return e("span",{class:"badge busy nav-count",title:p,children:[e("span",{"aria-hidden":"true",children:d.count}),e("span",{class:"sr-only",children:p})]})}const nt=50,kt=[".md",".markdown",".txt",".html",".htm"];function Mo({sub:t}){return t==="new"?e(Bo,{}):t?e(Uo,{id:decodeURIComponent(t)}):e(qo,{})}function qo(){const{api:t,can:n,viewer:r}=$(),o=he("kbs"),a=Z(()=>t.request(Sr,{first:nt,after:o.after}),[o.after]),s=Y(),l=a.data?.knowledgeBases;return e(w,{children:[e(x,{title:"Knowledge",children:n.manageSome&&e(T,{class:"button primary",to:"/knowledge/new",children:"Create knowledge base"})}),e(it,{loads:r.space?[a]:[a,s]}),l&&e(w,{children:[e("table",{children:[e("caption",{children:"Knowledge bases"}),e("thead",{children:e("tr",{children:[e("th",{scope:"col",children:"Label"}),e("th",{scope:"col",children:"Name"}),e("th",{scope:"col",children:"Space"}),e("th",{scope:"col",children:"Documents"}),e("th",{scope:"col",children:"Created"})]})}),e("tbody",{children:l.edges.map(({node:i})=>e("tr",{children:[e("td",{children:e(T,{to:`/knowledge/${encodeURIComponent(i.id)}`,children:i.label})}),e("td",{children:e("code",{children:i.name})}),e("td",{children:i.space.name}),e("td",{children:i.documentCount}),e("td",{children:G(i.createdAt)})]},i.id))})]}),l.edges.length===0&&e("p",{class:"empty",children:"No knowledge base yet."}),e(me,{label:"Knowledge bases",pages:o,pageSize:nt,connection:l}),e(Rn,{spaces:s,bases:l.edges.map(({node:i})=>({id:i.id,label:i.label,spaceId:i.space.id}))})]})]})}function Bo(){const{api:t,can:n,viewer:r}=$(),o=Y(),[a,s]=h(r.space?.id??""),[l,i]=h(""),[d,c]=h(""),[p,m]=h(""),u=j();return n.manageSome?e(w,{children:[e(x,{title:"Create knowledge base"}),e(we,{onSubmit:async _=>{_.preventDefault();const y=await u.run(async()=>(await t.request(Ir,{input:{spaceId:a||o.data?.[0]?.id||"",name:l,label:d,description:p||null}})).createKnowledgeBase);y?.knowledgeBase&&_e(ie(`/knowledge/${encodeURIComponent(y.knowledgeBase.id)}`))},mutation:u,fields:["spaceId","name","label","description"],submitLabel:"Create knowledge base",cancel:"/knowledge",children:[n.admin&&e(U,{label:"Space",name:"spaceId",value:a,onChange:s,errors:u.errors,options:fe(o.data)}),n.admin&&e(ge,{spaces:o}),e(k,{label:"Name",name:"name",value:l,onInput:i,errors:u.errors,hint:"Unique in the space: ^[a-zA-Z0-9_-]{1,64}$."}),e(k,{label:"Label",name:"label",value:d,onInput:c,errors:u.errors}),e(ne,{label:"Description",name:"description",value:p,onInput:m,errors:u.errors,rows:2})]})]}):e("p",{children:"This key cannot create knowledge bases."})}function Uo({id:t}){const{api:n,can:r,viewer:o}=$(),a=he(t),s=Z(()=>n.request(wr,{id:t,first:nt,after:a.after}),[t,a.after]),l=Y(),i=s.data?.node,d=i?.__typename==="KnowledgeBase"?i:null;if(s.data&&!d)return e(w,{children:[e(x,{title:"Knowledge base not found"}),e("p",{children:["No knowledge base ",e("code",{children:t})," is visible to this key. ",e(T,{to:"/knowledge",children:"Back to Knowledge"})]})]});const c=d?.documents??null;return e(w,{children:[e(x,{title:d?`Knowledge base ${d.label}`:"Knowledge base",children:e(T,{class:"button",to:"/knowledge",children:"All knowledge bases"})}),e(it,{loads:o.space?[s]:[s,l]}),d&&e("dl",{class:"facts",children:[e("dt",{children:"Name"}),e("dd",{children:e("code",{children:d.name})}),e("dt",{children:"Space"}),e("dd",{children:d.space.name}),e("dt",{children:"Description"}),e("dd",{children:d.description??"—"})]}),d&&r.manage(d.space.id)&&e(Ko,{knowledgeBaseId:t,onAdded:s.reload}),c&&e("div",{"aria-busy":s.loading,children:[e("table",{children:[e("caption",{children:["Documents (",c.totalCount.toLocaleString(),")"]}),e("thead",{children:e("tr",{children:[e("th",{scope:"col",children:"Title"}),e("th",{scope:"col",children:"Source"}),e("th",{scope:"col",children:"Chunks"}),e("th",{scope:"col",children:"Added"})]})}),e("tbody",{children:c.edges.map(({node:p})=>e("tr",{children:[e("td",{children:p.title}),e("td",{children:p.source??"—"}),e("td",{children:p.chunkCount}),e("td",{children:G(p.createdAt)})]},p.id))})]}),c.totalCount===0&&e("p",{class:"empty",children:"No document yet."}),e(me,{label:"Documents",pages:a,pageSize:nt,connection:c})]}),d&&e(Rn,{spaces:l,bases:[{id:d.id,label:d.label,spaceId:d.space.id}]})]})}async function Oo(t){const n=t.name.toLowerCase();if(!kt.some(s=>n.endsWith(s)))throw new Error(`${t.name}: only ${kt.join(" ")} files are read here (PDF: quiver kb ingest).`);const r=await t.text(),o=t.name.replace(/\.[^.]+$/,"");if(n.endsWith(".html")||n.endsWith(".htm")){const s=new DOMParser().parseFromString(r,"text/html"),l=[];return s.body.querySelectorAll("h1,h2,h3,h4,h5,h6,p,li,pre,td").forEach(i=>{const d=i.textContent?.trim();if(!d)return;const c=/^H([1-6])$/.exec(i.tagName)?.[1];l.push(c?`${"#".repeat(Number(c))} ${d}`:d)}),{title:s.title.trim()||o,text:l.join(`

`)}}return{title:/^ {0,3}#[ \t]+(.+?)[ \t]*#*[ \t]*$/m.exec(r)?.[1]?.trim()||o,text:r}}function Ko({knowledgeBaseId:t,onAdded:n}){const{api:r}=$(),[o,a]=h([]),[s,l]=h(!1),i=async d=>{if(!d?.length)return;l(!0);const c=[];for(const p of Array.from(d))try{const{title:m,text:u}=await Oo(p),f=(await r.request(Cr,{input:{knowledgeBaseId:t,title:m,text:u,source:p.name}})).addDocument;c.push(f.userErrors.length?`${p.name}: ${f.userErrors.map(_=>_.message).join(" ")}`:`${p.name}: ${f.outcome?.toLowerCase()}, ${f.document?.chunkCount} chunks`)}catch(m){c.push(re(m))}a(c),l(!1),n()};return e("section",{"aria-labelledby":"upload-title",class:"card",children:[e("h2",{id:"upload-title",children:"Upload files"}),e("div",{class:"field",children:[e("label",{for:"upload-files",children:"Files (.md, .txt, .html)"}),e("input",{id:"upload-files",type:"file",multiple:!0,accept:kt.join(","),disabled:s,onChange:d=>i(d.currentTarget.files)}),e("p",{class:"hint",children:"The same file name again replaces that document."})]}),o.length>0&&e(Re,{children:e("ul",{class:"plain",children:o.map(d=>e("li",{children:d},d))})})]})}function Rn({bases:t,spaces:n}){const{api:r,viewer:o}=$(),[a,s]=h(o.space?.id??t[0]?.spaceId??""),[l,i]=h(""),[d,c]=h("5"),[p,m]=h([]),[u,f]=h(null),[_,y]=h(null),b=t.filter(g=>g.spaceId===a);return e("section",{"aria-labelledby":"search-title",children:[e("h2",{id:"search-title",children:"Search playground"}),e("form",{class:"card form",onSubmit:async g=>{g.preventDefault(),y(null);try{const v=await r.request(kr,{spaceId:a,query:l,topK:Number(d)||5,knowledgeBaseIds:p.length?p.filter(C=>b.some(A=>A.id===C)):null});f(v.searchKnowledge)}catch(v){y(re(v))}},role:"search","aria-label":"Search knowledge",children:[!o.space&&e(U,{label:"Space",name:"spaceId",value:a,onChange:s,options:fe(n.data)}),!o.space&&e(ct,{spaces:n}),e(k,{label:"Query",name:"query",value:l,onInput:i}),e(k,{label:"Results",name:"topK",value:d,onInput:c,type:"number"}),b.length>1&&e($e,{legend:"Only these knowledge bases",name:"knowledgeBaseIds",options:b.map(g=>({value:g.id,label:g.label})),selected:p,onChange:m}),e("div",{class:"buttons",children:e("button",{type:"submit",children:"Search"})})]}),_&&e("p",{class:"form-errors",role:"alert",children:_}),u&&e("ol",{class:"hits","aria-label":"Search results",children:[u.length===0&&e("li",{children:"No passage matches."}),u.map(g=>e("li",{class:"card",children:[e("p",{class:"hit-meta",children:[e("span",{class:"score",children:["score ",g.score.toFixed(4)]})," · ",e("strong",{children:g.document.title}),g.headingPath.length>0&&e(w,{children:[" › ",g.headingPath.join(" › ")]})]}),e("blockquote",{children:g.text}),e("p",{class:"citation",children:["Cite: ",g.document.title,g.source?`, ${g.source}`:"",", passage ",g.chunkIndex+1]})]},`${g.document.id}-${g.chunkIndex}`))]})]})}const Je=500,en=100,Vo=["EVENTS_MISSED","EVENT_BUS_UNAVAILABLE","SUBSCRIBER_OVERFLOW"],Fo=15e3;function rt(t){const n=/\.(\d+)/.exec(t)?.[1]??"";return Date.parse(t)*1e3+Number(n.slice(3,6).padEnd(3,"0"))}function tn(t,n){const[r,o]=[rt(t.at),rt(n.startedAt)];return o>r?{at:n.startedAt,ids:[n.id]}:o===r&&!t.ids.includes(n.id)?{...t,ids:[...t.ids,n.id]}:t}function Ho(t,n){const r=[...n].reverse(),o=[];for(const a of t){for(;r.length&&rt(r[0].startedAt)>rt(a.startedAt);)o.push(r.shift());o.push(a)}return[...o,...r].slice(0,Je)}function jo(){const{api:t}=$(),n=Y(),[r,o]=h(""),[a,s]=h(""),[l,i]=h(""),[d,c]=h([]),[p,m]=h([]),[u,f]=h(!1),[_,y]=h(null),b=ee(null),[S,g]=h("connecting"),[v,C]=h(null),[A,M]=h({kind:"idle"}),W=ee(u);W.current=u;const O=ee({calls:d,held:p});O.current={calls:d,held:p};const P=a.trim(),D=ee({}),V=ee({at:new Date().toISOString(),ids:[]}),Q=ee(null),z=ee(S);z.current=S;const[ce,Oe]=h(0),oe=ee(0),[q,ye]=h(null),de=ee("");R(()=>t.onSocketState(g),[t]),R(()=>{C(null),ye(null);const N={spaceId:r||null,toolId:P||null,status:l||null},se=JSON.stringify(N);se!==de.current&&(de.current=se,M({kind:"idle"}),D.current=N,V.current={at:new Date().toISOString(),ids:[]},Q.current=null,oe.current=0);let ve;const Ce=t.subscribe(yr,{filter:N},{next:ae=>{const le=ae.toolCalls;oe.current=0,V.current=tn(V.current,le),W.current?m(ue=>[le,...ue].slice(0,Je)):c(ue=>[le,...ue].slice(0,Je))},error:ae=>{if(!(ae instanceof Mn)||!ae.code||!Vo.includes(ae.code)){C(ae.message);return}Q.current===null&&(Q.current=V.current),ye(ae.code==="EVENT_BUS_UNAVAILABLE"?"The server cannot follow the calls of all its replicas right now; trying again…":"The live feed was interrupted; subscribing again…");const le=Math.min(1e3*2**oe.current,Fo);oe.current+=1,ve=window.setTimeout(()=>Oe(ue=>ue+1),le)}});return Q.current!==null&&z.current==="connected"&&Ie(),()=>{window.clearTimeout(ve),Ce()}},[t,r,P,l,ce]);const Ie=qe(async()=>{const N=Q.current;if(N===null)return;const se=D.current;M({kind:"running"});let ve;try{const K={filter:{...se,since:N.at},first:en};ve=(await t.request(vr,K)).toolCalls}catch(K){D.current===se&&!(K instanceof ot)&&M({kind:"failed",message:re(K)});return}if(D.current!==se)return;const Ce=ve.edges.map(({node:K})=>K).filter(K=>K.status!=="PENDING_APPROVAL"&&!N.ids.includes(K.id));for(const K of Ce)V.current=tn(V.current,K);const ae=new Set([...O.current.calls,...O.current.held].map(K=>K.id)),le=Ce.filter(K=>!ae.has(K.id)),ue=K=>Ho(K,le.filter(Ke=>!K.some(Ve=>Ve.id===Ke.id)));W.current?m(ue):c(ue),z.current==="connected"&&Q.current===N&&(Q.current=null),M(ve.pageInfo.hasNextPage?{kind:"partial"}:{kind:"idle"})},[t]);R(()=>{S==="reconnecting"&&Q.current===null&&(Q.current=V.current),S==="connected"&&Q.current!==null&&Ie()},[S,Ie]);const dt=S==="connected"&&Q.current!==null&&A.kind!=="failed";return e(w,{children:[e(x,{title:"Live calls",children:[u?e("button",{type:"button",onClick:()=>{c(N=>[...p,...N].slice(0,Je)),m([]),f(!1)},children:["Resume (",p.length," waiting)"]}):e("button",{type:"button",onClick:()=>f(!0),children:"Pause"}),e("button",{type:"button",onClick:()=>{c([]),A.kind==="partial"&&M({kind:"idle"})},children:"Clear"})]}),e("p",{class:"muted",role:"status",children:[S==="reconnecting"?"Reconnecting… the live connection dropped; the calls that finish meanwhile are read from the call log once it is back.":q||(S==="connected"?dt?"Listening. Reading the calls that finished while the connection was down…":"Listening: every finished call appears here as it happens.":S==="connecting"?"Connecting…":"Disconnected."),u&&" Paused: new calls wait until you resume."]}),v&&e("p",{class:"form-errors",role:"alert",children:v}),e(X,{error:A.kind==="failed"?`The calls that finished while the connection was down could not be read: ${A.message}`:null,retry:()=>{Ie()}}),A.kind==="partial"&&e(Re,{children:["Not every call that finished while the connection was down is shown: the oldest ",en," in the call log were read, the later ones are only there (the toolCalls query)."]}),e("form",{class:"filters","aria-label":"Filter live calls",onSubmit:N=>N.preventDefault(),children:[e(U,{label:"Space",name:"spaceId",value:r,onChange:o,options:[["","Every space"],...fe(n.data)]}),e(k,{label:"Tool id",name:"toolId",value:a,onInput:s,placeholder:"e.g. bt_calculator"}),e(U,{label:"Status",name:"status",value:l,onChange:i,options:[["","Any status"],["SUCCESS","Success"],["FAILED","Failed"]]})]}),e(ge,{spaces:n}),e("table",{class:"live",children:[e("caption",{class:"sr-only",children:"Live tool calls, newest first"}),e("thead",{children:e("tr",{children:[e("th",{scope:"col",children:"Started"}),e("th",{scope:"col",children:"Tool"}),e("th",{scope:"col",children:"Space"}),e("th",{scope:"col",children:"Status"}),e("th",{scope:"col",children:"Latency"}),e("th",{scope:"col",children:"Caller"}),e("th",{scope:"col",children:"Call"})]})}),e("tbody",{children:d.map(N=>e("tr",{class:_?.id===N.id?"selected":void 0,children:[e("td",{children:G(N.startedAt)}),e("td",{children:e("code",{children:N.toolId})}),e("td",{children:N.space.name}),e("td",{children:[e(E,{tone:J(N.status),children:N.status})," ",N.error?.code]}),e("td",{children:Ee(N.latencyMs)}),e("td",{children:N.agent?`agent ${N.agent.name}`:"direct"}),e("td",{children:e("button",{type:"button",onClick:se=>{b.current=se.currentTarget,y(N)},"aria-label":`Open call ${N.id}`,children:"Open"})})]},N.id))})]}),d.length===0&&e("p",{class:"empty",children:"No call yet. Calls made anywhere — the API, agents, other consoles — show up here."}),_&&e(Go,{call:_,onClose:()=>{y(null),b.current?.isConnected&&b.current.focus()}})]})}function Go({call:t,onClose:n}){const r=ee(null);return R(()=>r.current?.focus(),[t.id]),e("section",{class:"card call-detail","aria-labelledby":"call-title",onKeyDown:o=>{o.key==="Escape"&&(o.preventDefault(),n())},children:[e("h2",{id:"call-title",tabIndex:-1,ref:r,children:["Call ",t.id]}),e("dl",{class:"facts",children:[e("dt",{children:"Tool"}),e("dd",{children:e(T,{to:`/tools/${encodeURIComponent(t.toolId)}`,children:t.toolId})}),e("dt",{children:"Status"}),e("dd",{children:e(E,{tone:J(t.status),children:t.status})}),e("dt",{children:"Space"}),e("dd",{children:t.space.name}),e("dt",{children:"Started"}),e("dd",{children:G(t.startedAt)}),e("dt",{children:"Latency"}),e("dd",{children:[Ee(t.latencyMs),", ",t.attempts," attempt",t.attempts===1?"":"s"]}),e("dt",{children:"Trace id"}),e("dd",{children:e("code",{children:t.traceId})}),e("dt",{children:"Idempotency key"}),e("dd",{children:t.idempotencyKey??"—"}),e("dt",{children:"Caller"}),e("dd",{children:t.agent?e(w,{children:["agent ",e(T,{to:`/agents/${encodeURIComponent(t.agent.id)}`,children:t.agent.name}),t.run&&e(w,{children:[", run ",e("code",{children:t.run.id})]})]}):"a direct call"})]}),e("h3",{children:"Arguments"}),e(Te,{label:"Arguments",value:t.arguments}),t.error?e(w,{children:[e("h3",{children:"Error"}),e("p",{children:[e("code",{children:t.error.code})," ",t.error.message]}),t.error.detail&&e("pre",{class:"json",children:t.error.detail})]}):e(w,{children:[e("h3",{children:"Result"}),e(Te,{label:"Result",value:t.result})]}),e("button",{type:"button",onClick:n,children:"Close call"})]})}const bt=20,nn=100;function Wo(){const{api:t,can:n}=$(),r=he("mcp"),o=Z(()=>t.request(Ar,{first:bt,after:r.after}),[r.after]),[a,s]=h(!1),l=o.data?.mcpServers;return e(w,{children:[e(x,{title:"MCP servers",children:n.admin&&!a&&e("button",{type:"button",class:"primary",onClick:()=>s(!0),children:"Register MCP server"})}),a&&e(Zo,{onDone:i=>{s(!1),i&&o.reload()}}),e(X,{error:o.error,retry:o.reload}),l&&l.edges.length===0&&e("p",{class:"empty",children:"No MCP server is registered."}),l?.edges.map(({node:i})=>e(zo,{server:i,onChanged:o.reload},i.id)),l&&l.totalCount>bt&&e(me,{label:"MCP servers",pages:r,pageSize:bt,connection:l})]})}function zo({server:t,onChanged:n}){const{api:r,can:o}=$(),a=j(),s=j(),[l,i]=h(null),d=he(`mcp-tools-${t.id}`),c=Z(()=>r.request($r,{id:t.id,after:d.after}),[t.id,d.after]),p=c.data?.node&&"tools"in c.data.node?c.data.node.tools:null,m=p?.edges.filter(({node:b})=>b.driftedAt)??[],u=()=>{c.reload(),n()},f=async()=>{i(null);const b=await a.run(async()=>(await r.request(Er,{id:t.id})).syncMcpServer);b?.syncReport&&i(b.syncReport),u()},_=async(b,S)=>{await s.run(async()=>(await r.request(Rt,{input:{id:b,status:S}})).setStatus)&&u()},y=`server-${t.id}`;return e("section",{class:"card","aria-labelledby":y,children:[e("h2",{id:y,children:[t.name," ",e(E,{tone:J(t.status),children:t.status})," ",e(E,{children:t.transport}),m.length>0&&e(E,{tone:"bad",children:[m.length," drifted"]})]}),e("dl",{class:"facts",children:[e("dt",{children:"Id"}),e("dd",{children:e("code",{children:t.id})}),e("dt",{children:t.url?"URL":"Command"}),e("dd",{children:e("code",{children:t.url??t.command?.join(" ")})}),e("dt",{children:"Visible in"}),e("dd",{children:t.isGlobal?"every space (global)":t.boundSpaces.map(b=>b.name).join(", ")}),e("dt",{children:"Last sync"}),e("dd",{children:G(t.lastSyncedAt)}),t.lastError&&e(w,{children:[e("dt",{children:"Last error"}),e("dd",{class:"error-text",children:t.lastError})]})]}),o.admin&&e("div",{class:"buttons",children:[e("button",{type:"button",onClick:f,disabled:a.busy,children:a.busy?"Syncing…":`Sync ${t.name}`}),t.status==="ACTIVE"?e("button",{type:"button",onClick:()=>_(t.id,"DISABLED"),disabled:s.busy,children:"Disable server"}):e("button",{type:"button",onClick:()=>_(t.id,"ACTIVE"),disabled:s.busy,children:"Re-activate server"})]}),e(te,{errors:[...a.errors,...s.errors],fields:[]}),l&&e(Jo,{report:l}),e("h3",{children:["Tools",p?` (${p.totalCount})`:""]}),e(X,{error:c.error,retry:c.reload}),e("table",{class:"compact",children:[e("caption",{class:"sr-only",children:["Tools of ",t.name]}),e("thead",{children:e("tr",{children:[e("th",{scope:"col",children:"Tool"}),e("th",{scope:"col",children:"Status"}),e("th",{scope:"col",children:"Drift"}),o.admin&&e("th",{scope:"col",children:"Action"})]})}),e("tbody",{children:p?.edges.map(({node:b})=>e("tr",{children:[e("td",{children:e(T,{to:`/tools/${encodeURIComponent(b.id)}`,children:b.name})}),e("td",{children:e(E,{tone:J(b.status),children:b.status})}),e("td",{children:b.driftedAt?e(E,{tone:"bad",children:["drifted ",G(b.driftedAt)]}):"—"}),o.admin&&e("td",{children:b.status!=="ACTIVE"&&e("button",{type:"button",onClick:()=>_(b.id,"ACTIVE"),disabled:s.busy,"aria-label":`Re-activate ${b.name}`,children:"Re-activate"})})]},b.id))})]}),p&&p.totalCount>nn&&e(me,{label:`Tools of ${t.name}`,pages:d,pageSize:nn,connection:p})]})}function Jo({report:t}){const n=[["Added",t.added],["Changed",t.updated],["Disabled",t.disabled],["Drifted",t.drifted],["Re-activated",t.reactivated],["Vanished",t.vanished],["Skipped",t.skipped]];return e("div",{class:"result",role:"status","aria-label":"Sync result",children:[e("p",{children:["Synced: ",t.added.length," added, ",t.updated.length," changed, ",t.disabled.length," disabled,"," ",t.unchanged.length," unchanged (",t.pages," page",t.pages===1?"":"s",")."]}),e("dl",{class:"facts",children:n.filter(([,r])=>r.length).map(([r,o])=>e(w,{children:[e("dt",{children:r},`${r}-t`),e("dd",{children:o.join(", ")},`${r}-d`)]}))})]})}function Zo({onDone:t}){const{api:n}=$(),r=Y(),[o,a]=h(""),[s,l]=h("STREAMABLE_HTTP"),[i,d]=h(""),[c,p]=h(""),[m,u]=h("NONE"),[f,_]=h(""),[y,b]=h(""),[S,g]=h([]),v=j();return e(we,{label:"Register MCP server",onSubmit:async A=>{A.preventDefault(),await v.run(async()=>(await n.request(Tr,{input:{name:o,transport:s,url:s==="STDIO"?null:i,command:s==="STDIO"?c.split(/\s+/).filter(Boolean):null,auth:m==="NONE"?null:{type:m,headerName:f||null,secret:y||null},spaceIds:S.length?S:null}})).registerMcpServer)&&t(!0)},mutation:v,fields:["name","transport","url","command","auth","auth.type","auth.headerName","auth.secret","spaceIds"],submitLabel:"Register server",cancel:()=>t(!1),children:[e(k,{label:"Name",name:"name",value:o,onInput:a,errors:v.errors,hint:"^[a-zA-Z0-9_-]{1,64}$; tools are named {serverId}__{tool}."}),e(U,{label:"Transport",name:"transport",value:s,onChange:l,errors:v.errors,options:[["STREAMABLE_HTTP","Streamable HTTP"],["SSE","HTTP + SSE (older)"],["STDIO","Local process (stdio)"]]}),s==="STDIO"?e(k,{label:"Command",name:"command",value:c,onInput:p,errors:v.errors,hint:"The program and its arguments, separated by spaces."}):e(k,{label:"URL",name:"url",value:i,onInput:d,errors:v.errors,type:"url"}),e(U,{label:"Authentication",name:"auth.type",value:m,onChange:u,errors:v.errors,options:[["NONE","None"],["BEARER","Bearer token"],["API_KEY","API key header"],["HEADER","Custom header"]]}),(m==="API_KEY"||m==="HEADER")&&e(k,{label:"Header name",name:"auth.headerName",value:f,onInput:_,errors:v.errors}),m!=="NONE"&&e(k,{label:"Secret",name:"auth.secret",value:y,onInput:b,errors:v.errors,type:"password",autoComplete:"new-password",hint:"Write-only: stored encrypted, never shown again."}),e($e,{legend:"Bind to spaces (none checked: global)",name:"spaceIds",options:(r.data??[]).map(A=>({value:A.id,label:`${A.label} (${A.name})`})),selected:S,onChange:g,errors:v.errors}),e(ge,{spaces:r})]})}const Qo=4e6;function Xo(t,n){const r=t.split(`
`),o=n.split(`
`);if(r.length*o.length>Qo)return[...r.map(d=>({kind:"removed",text:d})),...o.map(d=>({kind:"added",text:d}))];const a=Array.from({length:r.length+1},()=>new Uint32Array(o.length+1));for(let d=r.length-1;d>=0;d-=1)for(let c=o.length-1;c>=0;c-=1)a[d][c]=r[d]===o[c]?a[d+1][c+1]+1:Math.max(a[d+1][c],a[d][c+1]);const s=[];let l=0,i=0;for(;l<r.length&&i<o.length;)r[l]===o[i]?(s.push({kind:"same",text:r[l]}),l+=1,i+=1):a[l+1][i]>=a[l][i+1]?(s.push({kind:"removed",text:r[l]}),l+=1):(s.push({kind:"added",text:o[i]}),i+=1);for(;l<r.length;l+=1)s.push({kind:"removed",text:r[l]});for(;i<o.length;i+=1)s.push({kind:"added",text:o[i]});return s}const rn=50;function Yo({sub:t}){return t==="new"?e(ts,{}):t==="import"?e(ns,{}):t?e(rs,{id:decodeURIComponent(t)}):e(es,{})}function es(){const{api:t,can:n}=$(),[r,o]=h(""),[a,s]=h(""),l=he(a),i=Z(()=>t.request(Rr,{first:rn,after:l.after,filter:a?{search:a}:null}),[a,l.after]),d=i.data?.skills;return e(w,{children:[e(x,{title:"Skills",children:n.manageSome&&e(w,{children:[e(T,{class:"button primary",to:"/skills/new",children:"Create skill"}),e(T,{class:"button",to:"/skills/import",children:"Import SKILL.md"})]})}),e("form",{class:"filters",role:"search","aria-label":"Filter skills",onSubmit:c=>{c.preventDefault(),s(r.trim())},children:[e(k,{label:"Search",name:"search",value:r,onInput:o}),e("button",{type:"submit",children:"Filter"})]}),e(X,{error:i.error,retry:i.reload}),d&&e(w,{children:[e("table",{children:[e("caption",{class:"sr-only",children:"Skills"}),e("thead",{children:e("tr",{children:[e("th",{scope:"col",children:"Name"}),e("th",{scope:"col",children:"Label"}),e("th",{scope:"col",children:"Scope"}),e("th",{scope:"col",children:"Production"}),e("th",{scope:"col",children:"Candidate"}),e("th",{scope:"col",children:"Status"})]})}),e("tbody",{children:d.edges.map(({node:c})=>e("tr",{children:[e("td",{children:e(T,{to:`/skills/${encodeURIComponent(c.id)}`,children:c.name})}),e("td",{children:c.label}),e("td",{children:c.space?c.space.name:"global"}),e("td",{children:c.version}),e("td",{children:c.candidateVersion?`${c.candidateVersion} (${c.canaryPercent}% of sessions)`:"—"}),e("td",{children:e(E,{tone:J(c.status),children:c.status})})]},c.id))})]}),e(me,{label:"Skills",pages:l,pageSize:rn,connection:d})]}),e(cs,{})]})}function Dn({value:t,onChange:n,allowGlobal:r,errors:o}){const a=Y(),s=[...r?[["","Global (every space)"]]:[],...fe(a.data)];return e(w,{children:[e(U,{label:"Space",name:"spaceId",value:t,onChange:n,options:s,errors:o}),e(ge,{spaces:a})]})}function ts(){const{api:t,can:n,viewer:r}=$(),[o,a]=h(r.space?.id??""),[s,l]=h(""),[i,d]=h(""),[c,p]=h(""),[m,u]=h(""),[f,_]=h(""),[y,b]=h(""),S=j();return n.manageSome?e(w,{children:[e(x,{title:"Create skill"}),e(we,{wide:!0,onSubmit:async v=>{v.preventDefault();const C=await S.run(async()=>(await t.request(Nr,{input:{spaceId:o||null,name:s,label:i,description:c,prompt:m,triggerHints:f.split(",").map(A=>A.trim()).filter(Boolean),boundary:y||null}})).createSkill);C?.skill&&_e(ie(`/skills/${encodeURIComponent(C.skill.id)}`))},mutation:S,fields:["spaceId","name","label","description","prompt","triggerHints","boundary"],submitLabel:"Create skill",cancel:"/skills",children:[n.admin&&e(Dn,{value:o,onChange:a,allowGlobal:!0,errors:S.errors}),e(k,{label:"Name",name:"name",value:s,onInput:l,errors:S.errors,hint:"1-64 of a-z, 0-9 and single hyphens."}),e(k,{label:"Label",name:"label",value:i,onInput:d,errors:S.errors}),e(k,{label:"Description",name:"description",value:c,onInput:p,errors:S.errors}),e(ne,{label:"Prompt",name:"prompt",value:m,onInput:u,errors:S.errors,rows:10,mono:!0,hint:"Markdown methodology; becomes version 1.0.0 in PRODUCTION."}),e(k,{label:"Trigger hints",name:"triggerHints",value:f,onInput:_,errors:S.errors,hint:"Comma-separated phrases that signal the skill applies."}),e(k,{label:"Boundary",name:"boundary",value:y,onInput:b,errors:S.errors,hint:"What the skill must not be used for."})]})]}):e("p",{children:"This key cannot create skills."})}function ns(){const{api:t,can:n,viewer:r}=$(),[o,a]=h(r.space?.id??""),[s,l]=h(""),[i,d]=h(!1),c=j();return n.manageSome?e(w,{children:[e(x,{title:"Import SKILL.md"}),e(we,{wide:!0,onSubmit:async m=>{m.preventDefault();const u=await c.run(async()=>(await t.request(Br,{input:{spaceId:o||null,text:s,replaceExisting:i}})).importSkill);u?.skill&&_e(ie(`/skills/${encodeURIComponent(u.skill.id)}`))},mutation:c,fields:["spaceId","text"],submitLabel:"Import skill",cancel:"/skills",children:[n.admin&&e(Dn,{value:o,onChange:a,allowGlobal:!0,errors:c.errors}),e("div",{class:"field",children:[e("label",{for:"skill-file",children:"SKILL.md file"}),e("input",{id:"skill-file",type:"file",accept:".md,text/markdown",onChange:async m=>l(await m.currentTarget.files?.[0]?.text()??s)})]}),e(ne,{label:"SKILL.md text",name:"text",value:s,onInput:l,errors:c.errors,rows:14,mono:!0,hint:"YAML front matter (name, description, metadata) then the Markdown prompt."}),e("label",{class:"check",children:[e("input",{type:"checkbox",checked:i,onChange:m=>d(m.currentTarget.checked)})," Update the skill of that name if it exists"]})]})]}):e("p",{children:"This key cannot import skills."})}function rs({id:t}){const{api:n,can:r}=$(),o=Z(()=>n.request(Dr,{id:t}),[t]),a=o.data?.skill;if(o.data&&!a)return e(w,{children:[e(x,{title:"Skill not found"}),e("p",{children:["No skill ",e("code",{children:t})," is visible to this key. ",e(T,{to:"/skills",children:"Back to Skills"})]})]});const s=a?r.manage(a.space?.id??null)&&(a.space!==null||r.admin):!1;return e(w,{children:[e(x,{title:a?`Skill ${a.name}`:"Skill",children:e(T,{class:"button",to:"/skills",children:"All skills"})}),e(X,{error:o.error,retry:o.reload}),a&&e(w,{children:[e("dl",{class:"facts",children:[e("dt",{children:"Label"}),e("dd",{children:a.label}),e("dt",{children:"Scope"}),e("dd",{children:a.space?`space ${a.space.name}`:"global"}),e("dt",{children:"Status"}),e("dd",{children:e(E,{tone:J(a.status),children:a.status})}),e("dt",{children:"Production"}),e("dd",{children:[a.version," (",a.charCount," characters)"]}),e("dt",{children:"Candidate"}),e("dd",{children:a.candidateVersion?`${a.candidateVersion}, served to ${a.canaryPercent}% of sessions`:"none"}),e("dt",{children:"Description"}),e("dd",{children:a.description}),e("dt",{children:"Trigger hints"}),e("dd",{children:a.triggerHints.join(", ")||"—"}),e("dt",{children:"Boundary"}),e("dd",{children:a.boundary??"—"})]}),s&&e(ss,{skill:a,onChanged:o.reload}),e(as,{skill:a}),e(ls,{skill:a}),e(is,{skill:a}),s&&e(os,{skill:a,onChanged:o.reload})]})]})}function os({skill:t,onChanged:n}){const{api:r}=$(),o=j(),a=t.status==="ACTIVE"?"DISABLED":"ACTIVE";return e("div",{class:"buttons",children:[e("button",{type:"button",disabled:o.busy,onClick:async()=>{await o.run(async()=>(await r.request(Rt,{input:{id:t.id,status:a}})).setStatus)&&n()},children:a==="ACTIVE"?"Enable skill":"Disable skill"}),e(te,{errors:o.errors,fields:[]})]})}function ss({skill:t,onChanged:n}){const{api:r}=$(),o=t.versions.find(P=>P.version===t.version),[a,s]=h(o?.prompt??""),[l,i]=h(""),[d,c]=h("10"),[p,m]=h(String(t.canaryPercent)),[u,f]=h(""),[_,y]=h(null),b=j(),S=j(),g=j(),v=j();R(()=>m(String(t.canaryPercent)),[t.canaryPercent]);const C=t.versions.filter(P=>P.version!==t.version&&P.channel!=="CANDIDATE"),A=async P=>{P.preventDefault();const D=await b.run(async()=>(await r.request(Lr,{input:{skillId:t.id,prompt:a,version:l||null,canaryPercent:d===""?null:Number(d)}})).publishSkillVersion);D?.skillVersion&&(y(`Version ${D.skillVersion.version} published as the candidate.`),i(""),n())},M=async()=>{const P=await S.run(async()=>(await r.request(xr,{input:{skillId:t.id}})).promoteSkillCandidate);P?.skill&&(y(`Version ${P.skill.version} is now in production.`),n())},W=async P=>{P.preventDefault();const D=await g.run(async()=>(await r.request(Mr,{input:{skillId:t.id,version:u||null}})).rollbackSkill);D?.skill&&(y(`Production rolled back to ${D.skill.version}.`),n())},O=async P=>{P.preventDefault();const D=await v.run(async()=>(await r.request(qr,{input:{skillId:t.id,canaryPercent:Number(p)}})).setSkillCanary);D?.skill&&(y(`The candidate now serves ${D.skill.canaryPercent}% of sessions.`),n())};return e("section",{"aria-labelledby":"channels-title",children:[e("h2",{id:"channels-title",children:"Channels"}),_&&e(Re,{children:_}),e("div",{class:"columns",children:[e("form",{class:"card form",onSubmit:A,"aria-label":"Publish a candidate",children:[e("h3",{children:"Publish a candidate"}),e(ne,{label:"Candidate prompt",name:"prompt",value:a,onInput:s,errors:b.errors,rows:8,mono:!0}),e(k,{label:"Candidate version",name:"version",value:l,onInput:i,errors:b.errors,hint:"Default: the next patch version."}),e(k,{label:"Canary share (%)",name:"canaryPercent",value:d,onInput:c,errors:b.errors,type:"number"}),e(te,{errors:b.errors,fields:["prompt","version","canaryPercent"]}),e("button",{type:"submit",disabled:b.busy,children:"Publish candidate"})]}),e("div",{children:[t.candidateVersion&&e("div",{class:"card",children:[e("h3",{children:["Candidate ",t.candidateVersion]}),e("button",{type:"button",class:"primary",onClick:M,disabled:S.busy,children:["Promote ",t.candidateVersion," to production"]}),e(te,{errors:S.errors,fields:[]}),e("form",{class:"form",onSubmit:O,"aria-label":"Canary share",children:[e(k,{label:"Share of sessions (%)",name:"canaryPercent",value:p,onInput:m,errors:v.errors,type:"number"}),e(te,{errors:v.errors,fields:["canaryPercent"]}),e("button",{type:"submit",disabled:v.busy,children:"Set canary share"})]})]}),C.length>0&&e("form",{class:"card form",onSubmit:W,"aria-label":"Roll back",children:[e("h3",{children:"Roll back production"}),e(U,{label:"Version to serve",name:"version",value:u,onChange:f,errors:g.errors,options:[["","The previous production version"],...C.map(P=>[P.version,`${P.version} (${P.channel})`])]}),e(te,{errors:g.errors,fields:["version"]}),e("button",{type:"submit",disabled:g.busy,children:"Roll back"})]})]})]})]})}function as({skill:t}){const n=t.versions,r=n[n.length-1]?.version??"",o=n.length>1?n[n.length-2].version:r,[a,s]=h(o),[l,i]=h(r);R(()=>{s(o),i(r)},[o,r]);const d=n.find(m=>m.version===a)?.prompt??"",c=n.find(m=>m.version===l)?.prompt??"",p=n.map(m=>[m.version,`${m.version} (${m.channel})`]);return e("section",{"aria-labelledby":"versions-title",children:[e("h2",{id:"versions-title",children:"Versions"}),e("table",{class:"compact",children:[e("caption",{class:"sr-only",children:"Versions"}),e("thead",{children:e("tr",{children:[e("th",{scope:"col",children:"Version"}),e("th",{scope:"col",children:"Channel"}),e("th",{scope:"col",children:"Created"}),e("th",{scope:"col",children:"Characters"})]})}),e("tbody",{children:n.map(m=>e("tr",{children:[e("td",{children:m.version}),e("td",{children:e(E,{tone:J(m.channel),children:m.channel})}),e("td",{children:G(m.createdAt)}),e("td",{children:m.prompt.length})]},m.version))})]}),n.length>1&&e(w,{children:[e("h3",{children:"Diff"}),e("div",{class:"filters",children:[e(U,{label:"From version",name:"from",value:a,onChange:s,options:p}),e(U,{label:"To version",name:"to",value:l,onChange:i,options:p})]}),e("pre",{class:"diff","aria-label":`Diff from ${a} to ${l}`,tabIndex:0,children:Xo(d,c).map((m,u)=>e("div",{class:m.kind,children:[e("span",{"aria-hidden":"true",children:m.kind==="added"?"+ ":m.kind==="removed"?"- ":"  "}),e("span",{class:"sr-only",children:m.kind==="added"?"added: ":m.kind==="removed"?"removed: ":""}),m.text]},u))})]})]})}function ls({skill:t}){return e("section",{"aria-labelledby":"history-title",children:[e("h2",{id:"history-title",children:"Channel history"}),e("table",{class:"compact",children:[e("caption",{class:"sr-only",children:"Channel history"}),e("thead",{children:e("tr",{children:[e("th",{scope:"col",children:"When"}),e("th",{scope:"col",children:"Action"}),e("th",{scope:"col",children:"Channel"}),e("th",{scope:"col",children:"From"}),e("th",{scope:"col",children:"To"}),e("th",{scope:"col",children:"Canary"}),e("th",{scope:"col",children:"By key"})]})}),e("tbody",{children:t.channelHistory.map((n,r)=>e("tr",{children:[e("td",{children:G(n.at)}),e("td",{children:n.action}),e("td",{children:n.channel}),e("td",{children:n.fromVersion??"—"}),e("td",{children:n.toVersion??"—"}),e("td",{children:n.canaryPercent===null?"—":`${n.canaryPercent}%`}),e("td",{children:e("code",{children:n.actor??"—"})})]},r))})]})]})}function is({skill:t}){const{api:n}=$(),[r,o]=h(t.version),[a,s]=h(null),[l,i]=h(null),d=async()=>{try{const p=await n.request(Pr,{id:t.id,version:r});s(p.skill?.skillMd??null)}catch(p){i(re(p))}},c=a?URL.createObjectURL(new Blob([a],{type:"text/markdown"})):null;return R(()=>()=>c?URL.revokeObjectURL(c):void 0,[c]),e("section",{"aria-labelledby":"export-title",children:[e("h2",{id:"export-title",children:"SKILL.md"}),e("div",{class:"filters",children:[e(U,{label:"Export version",name:"exportVersion",value:r,onChange:o,options:t.versions.map(p=>[p.version,p.version])}),e("button",{type:"button",onClick:d,children:"Export SKILL.md"})]}),l&&e("p",{role:"alert",children:l}),a&&c&&e(w,{children:[e("a",{href:c,download:`${t.name}-SKILL.md`,children:["Download ",t.name,"/SKILL.md"]}),e("pre",{class:"json","aria-label":"SKILL.md",tabIndex:0,children:a})]})]})}function cs(){const{api:t,viewer:n}=$(),r=Y(),[o,a]=h(n.space?.id??""),[s,l]=h(""),[i,d]=h(null),[c,p]=h(null),m=fe(r.data);return e("section",{"aria-labelledby":"match-title",children:[e("h2",{id:"match-title",children:"Match playground"}),e("form",{class:"card form",onSubmit:async f=>{f.preventDefault(),p(null);try{d((await t.request(Ur,{spaceId:o||m[0]?.[0]||"",query:s,topK:10})).matchSkills)}catch(_){p(re(_))}},role:"search","aria-label":"Match skills",children:[!n.space&&e(U,{label:"Space",name:"spaceId",value:o,onChange:a,options:m}),!n.space&&e(ge,{spaces:r}),e(Ue,{label:"Request",name:"query",children:f=>e("input",{...f,value:s,onInput:_=>l(_.currentTarget.value)})}),e("button",{type:"submit",children:"Match"})]}),c&&e("p",{role:"alert",children:c}),i&&e("table",{children:[e("caption",{children:"Matches, best first"}),e("thead",{children:e("tr",{children:[e("th",{scope:"col",children:"Skill"}),e("th",{scope:"col",children:"Score"}),e("th",{scope:"col",children:"Lexical"}),e("th",{scope:"col",children:"Semantic"}),e("th",{scope:"col",children:"Boundary"}),e("th",{scope:"col",children:"Why"})]})}),e("tbody",{children:[i.length===0&&e("tr",{children:e("td",{colSpan:6,children:"No skill matches this request."})}),i.map(f=>e("tr",{children:[e("td",{children:e(T,{to:`/skills/${encodeURIComponent(f.skill.id)}`,children:f.skill.name})}),e("td",{children:f.score.toFixed(3)}),e("td",{children:f.lexicalScore.toFixed(3)}),e("td",{children:f.semanticScore===null?"—":f.semanticScore.toFixed(3)}),e("td",{children:f.boundaryFactor<1?`× ${f.boundaryFactor.toFixed(2)} (touches its boundary)`:"—"}),e("td",{children:f.reason??"—"})]},f.skill.id))]})]})]})}const on=50;function ds({sub:t}){return t==="new"?e(ps,{}):t?e(hs,{id:decodeURIComponent(t)}):e(us,{})}function us(){const{api:t,can:n}=$(),r=he("spaces"),o=Z(()=>t.request(Or,{first:on,after:r.after}),[r.after]),a=o.data?.spaces;return e(w,{children:[e(x,{title:"Spaces",children:n.admin&&e(T,{class:"button primary",to:"/spaces/new",children:"Create space"})}),e(X,{error:o.error,retry:o.reload}),a&&e(w,{children:[e("table",{children:[e("caption",{class:"sr-only",children:"Spaces"}),e("thead",{children:e("tr",{children:[e("th",{scope:"col",children:"Label"}),e("th",{scope:"col",children:"Name"}),e("th",{scope:"col",children:"Id"}),e("th",{scope:"col",children:"Created"})]})}),e("tbody",{children:a.edges.map(({node:s})=>e("tr",{children:[e("td",{children:[e(T,{to:`/spaces/${encodeURIComponent(s.id)}`,children:s.label})," ",s.isSystem&&e(E,{children:"system"})]}),e("td",{children:e("code",{children:s.name})}),e("td",{children:e("code",{children:s.id})}),e("td",{children:G(s.createdAt)})]},s.id))})]}),e(me,{label:"Spaces",pages:r,pageSize:on,connection:a})]})]})}function ps(){const{api:t,can:n}=$(),[r,o]=h(""),[a,s]=h(""),l=j();return n.admin?e(w,{children:[e(x,{title:"Create space"}),e(we,{onSubmit:async d=>{d.preventDefault();const c=await l.run(async()=>(await t.request(Vr,{input:{name:r,label:a}})).createSpace);c?.space&&_e(ie(`/spaces/${encodeURIComponent(c.space.id)}?created=1`))},mutation:l,fields:["name","label"],submitLabel:"Create space",cancel:"/spaces",children:[e(k,{label:"Name",name:"name",value:r,onInput:o,errors:l.errors,hint:"Unique machine name: 1-64 of a-z, 0-9, '_' and '-'.",required:!0}),e(k,{label:"Label",name:"label",value:a,onInput:s,errors:l.errors,hint:"Display name for people.",required:!0})]})]}):e("p",{children:"Only ADMIN keys create spaces."})}function hs({id:t}){const{api:n}=$(),r=Z(()=>n.request(Kr,{id:t}),[t]),o=r.data?.space,a=new URLSearchParams(window.location.search).has("created");return r.data&&!o?e(w,{children:[e(x,{title:"Space not found"}),e("p",{children:["No space ",e("code",{children:t})," is visible to this key. ",e(T,{to:"/spaces",children:"Back to Spaces"})]})]}):e(w,{children:[e(x,{title:o?`Space ${o.label}`:"Space",children:e(T,{class:"button",to:"/spaces",children:"All spaces"})}),e(X,{error:r.error,retry:r.reload}),a&&o&&e(Re,{children:["Space ",o.name," created."]}),o&&e(w,{children:[e("dl",{class:"facts",children:[e("dt",{children:"Name"}),e("dd",{children:e("code",{children:o.name})}),e("dt",{children:"Id"}),e("dd",{children:e("code",{children:o.id})}),e("dt",{children:"Created"}),e("dd",{children:G(o.createdAt)})]}),e("h2",{children:"What this space can see"}),e("div",{class:"columns",children:[e("section",{"aria-labelledby":"visible-tools",children:[e("h3",{id:"visible-tools",children:["Tools (",o.visibleTools.totalCount,")"]}),e("ul",{class:"plain",children:o.visibleTools.edges.map(({node:s})=>e("li",{children:[e(T,{to:`/tools/${encodeURIComponent(s.id)}`,children:s.name})," ",e(E,{children:s.type})," ",e(E,{tone:s.isGlobal?"plain":"busy",children:s.isGlobal?"global":"bound"})]},s.id))}),o.visibleTools.totalCount>o.visibleTools.edges.length&&e(T,{to:`/tools?space=${encodeURIComponent(o.id)}`,children:["All ",o.visibleTools.totalCount," tools"]})]}),e("section",{"aria-labelledby":"visible-skills",children:[e("h3",{id:"visible-skills",children:["Skills (",o.skills.totalCount,")"]}),e("ul",{class:"plain",children:o.skills.edges.map(({node:s})=>e("li",{children:[e(T,{to:`/skills/${encodeURIComponent(s.id)}`,children:s.name})," ",e("span",{class:"muted",children:s.version})," ",!s.space&&e(E,{children:"global"})]},s.id))})]}),e("section",{"aria-labelledby":"visible-kbs",children:[e("h3",{id:"visible-kbs",children:["Knowledge bases (",o.knowledgeBases.totalCount,")"]}),e("ul",{class:"plain",children:o.knowledgeBases.edges.map(({node:s})=>e("li",{children:[e(T,{to:`/knowledge/${encodeURIComponent(s.id)}`,children:s.label})," ",e("span",{class:"muted",children:[s.documentCount," documents"]})]},s.id))})]}),e("section",{"aria-labelledby":"visible-agents",children:[e("h3",{id:"visible-agents",children:["Agents (",o.agents.totalCount,")"]}),e("ul",{class:"plain",children:o.agents.edges.map(({node:s})=>e("li",{children:[e(T,{to:`/agents/${encodeURIComponent(s.id)}`,children:s.name})," ",e("span",{class:"muted",children:s.model})]},s.id))})]})]})]})]})}const ms=[{path:"/spaces",name:"Spaces"},{path:"/tools",name:"Tools"},{path:"/mcp-servers",name:"MCP servers"},{path:"/knowledge",name:"Knowledge"},{path:"/skills",name:"Skills"},{path:"/agents",name:"Agents"},{path:"/approvals",name:"Approvals"},{path:"/live-calls",name:"Live calls"},{path:"/api-keys",name:"API keys"}];function fs(){const[t,n]=h(()=>Lt()?{kind:"checking"}:{kind:"signedOut",reason:Kn()}),r=qe(a=>{Bn(a??null),n({kind:"signedOut",reason:a??null})},[]),o=qe(async a=>{const s=new sn(a,i=>r(Pn(i))),{viewer:l}=await s.request(In,{});s.close(),Un(a),n({kind:"signedIn",key:a,viewer:l})},[r]);return R(()=>{if(t.kind!=="checking")return;const a=Lt();if(!a){n({kind:"signedOut",reason:null});return}o(a).catch(s=>{s instanceof ot||n({kind:"signedOut",reason:re(s)})})},[t.kind,o]),R(()=>{const a=s=>{s.key===On&&s.newValue===null&&r("You signed out in another window.")};return window.addEventListener("storage",a),()=>window.removeEventListener("storage",a)},[r]),t.kind==="checking"?e("main",{class:"signin","aria-busy":"true",children:e("p",{children:"Checking the saved API key…"})}):t.kind==="signedOut"?e(gs,{reason:t.reason,onSignIn:o}):e(bs,{apiKey:t.key,viewer:t.viewer,signOut:r},t.key)}function Pn(t){return`You were signed out because Quiver no longer accepts this API key (${t.replace(/\.$/,"")}). It may have been revoked; sign in with another key.`}function gs({reason:t,onSignIn:n}){const[r,o]=h(""),[a,s]=h(null),[l,i]=h(!1);return e("main",{class:"signin",id:"main",children:e("form",{class:"card",onSubmit:async c=>{c.preventDefault();const p=r.trim();if(!p){s("Enter an API key.");return}i(!0),s(null);try{const m=await qn(p);if(!m.ok){s(`This key was refused: ${m.reason}`);return}await n(p)}catch(m){s(re(m))}finally{i(!1)}},"aria-labelledby":"signin-title",children:[e("h1",{id:"signin-title",children:"Quiver console"}),e("p",{class:"hint",children:["Sign in with an API key. ",e("code",{children:"quiver serve"})," prints an ADMIN key on its first run;"," ",e("code",{children:"quiver apikey create"})," makes more."]}),t&&e("p",{class:"signed-out",role:"alert",children:t}),e("div",{class:`field${a?" invalid":""}`,children:[e("label",{for:"api-key",children:"API key"}),e("input",{id:"api-key",name:"apiKey",type:"password",autoComplete:"current-password",value:r,"aria-invalid":a!==null,"aria-describedby":a?"api-key-error":void 0,onInput:c=>o(c.currentTarget.value),autoFocus:!0}),a&&e("p",{class:"field-error",id:"api-key-error",role:"alert",children:a})]}),e("button",{type:"submit",class:"primary",disabled:l,children:"Sign in"}),e("p",{class:"hint",children:[e("a",{href:"/graphql",children:"GraphiQL"})," uses the same key."]})]})})}function bs({apiKey:t,viewer:n,signOut:r}){const[o,a]=h(n),s=De(()=>new sn(t,d=>r(Pn(d))),[t,r]);R(()=>()=>s.close(),[s]),R(()=>{const d=window.setInterval(()=>{s.request(In,{}).then(c=>a(c.viewer),()=>{})},Qr);return()=>window.clearInterval(d)},[s]);const l=De(()=>({api:s,viewer:o,can:Xr(o),signOut:r}),[s,o,r]),i=Cn();return R(()=>{i===""&&_e(ie("/spaces"),{replace:!0})},[i]),e(kn.Provider,{value:l,children:[e("a",{class:"skip",href:"#main",children:"Skip to content"}),e("header",{class:"topbar",children:[e("span",{class:"brand",children:"Quiver"}),e("p",{class:"who","aria-label":"Signed in as",children:[e("span",{class:"badge role",children:o.role})," ",o.space?e(w,{children:["space ",e("strong",{children:o.space.label})," ",e("span",{class:"muted",children:["(",o.space.name,")"]})]}):e(w,{children:"every space"})," ",e("span",{class:"muted",children:["· key ",o.keyLabel?`“${o.keyLabel}” `:"",e("code",{children:o.keyId})]})]}),e("a",{href:"/graphql",class:"graphiql-link",children:"GraphiQL"}),e("button",{type:"button",onClick:()=>r(),children:"Sign out"})]}),e("div",{class:"layout",children:[e("nav",{class:"sidebar","aria-label":"Pages",children:e("ul",{children:ms.map(d=>e("li",{children:[e(T,{to:d.path,"aria-current":i===d.path||i.startsWith(`${d.path}/`)?"page":void 0,children:d.name}),d.path==="/approvals"&&e(xo,{})]},d.path))})}),e("main",{id:"main",class:"content",children:e(_s,{path:i})})]})]})}function _s({path:t}){const[,n,...r]=t.split("/"),o=r.join("/");switch(n){case"spaces":return e(ds,{sub:o});case"tools":return e(eo,{sub:o});case"mcp-servers":return e(Wo,{});case"knowledge":return e(Mo,{sub:o});case"skills":return e(Yo,{sub:o});case"agents":return e(mo,{sub:o});case"approvals":return e(No,{});case"live-calls":return e(jo,{});case"api-keys":return e(wo,{});case void 0:return null;default:return e(w,{children:[e(x,{title:"Not found"}),e("p",{children:["No page at ",e("code",{children:ie(t)}),". ",e(T,{to:"/spaces",children:"Go to Spaces"}),"."]})]})}}Jn(e(fs,{}),document.getElementById("app"));
