"""The words a diary says one thing with: groups of Korean (and a few English) terms that mean the
same in everyday writing, and general terms with the specific ones they cover.

Written for this project from ordinary usage, not from any dataset (the paraphrase dev set in
tests/data/retrieval was not consulted while writing it): 줄임말 and their full forms, 한자어 and
고유어 pairs, loanwords and Korean words, and the vocabulary of a diary — health, food, family,
work, money, home, feelings, time off. A term is a word or a short phrase in its dictionary form;
lexical/synonyms.py matches and analyses them. Keep each group to words a reader would accept as
"the same thing" in a journal; a loose group costs precision on every query that touches it.
"""

from __future__ import annotations

# One group a line, terms separated by " / ": a query naming one finds entries naming another.
SAME = """
남친 / 남자친구 / 애인
여친 / 여자친구 / 애인
알바 / 아르바이트 / 파트타임
카톡 / 카카오톡 / 메신저
생파 / 생일 파티 / 생일잔치
베프 / 베스트 프렌드 / 제일 친한 친구 / 절친
절친 / 친한 친구 / 단짝
폰 / 핸드폰 / 휴대폰 / 스마트폰 / 휴대전화
노트북 / 랩탑
컴퓨터 / 피시 / PC
치맥 / 치킨 맥주
엄마 / 어머니 / 모친 / 어머님
아빠 / 아버지 / 부친 / 아버님
부모님 / 엄빠 / 엄마 아빠 / 양친
할머니 / 조모 / 할매
할아버지 / 조부 / 할배
외할머니 / 외조모
외할아버지 / 외조부
남편 / 신랑 / 배우자
아내 / 와이프 / 부인 / 배우자
형제 / 남매 / 자매 / 동기간
동생 / 남동생 / 여동생
아이 / 애 / 자녀 / 자식
아기 / 애기 / 신생아 / 갓난아기
시어머니 / 시모
장모 / 장모님
결혼 / 혼인 / 결혼식 / 웨딩
약혼 / 상견례 / 프러포즈 / 청혼
이혼 / 갈라서다 / 이혼 소송
헤어지다 / 이별 / 결별 / 차이다
연애 / 사귀다 / 교제 / 데이트
임신 / 아기를 가지다 / 임산부
출산 / 아기를 낳다 / 분만
돌아가시다 / 사망 / 별세 / 세상을 떠나다 / 작고
장례식 / 장례 / 발인 / 빈소 / 조문
제사 / 차례 / 성묘
명절 / 설날 / 추석 / 설 / 한가위
생일 / 생신 / 탄신
반려동물 / 반려견 / 반려묘 / 펫
강아지 / 개 / 반려견 / 멍멍이 / 댕댕이
고양이 / 냥이 / 반려묘 / 야옹이
동물병원 / 수의사
산책 / 걷다 / 걷기 / 산보
달리기 / 러닝 / 조깅 / 뛰다
헬스 / 헬스장 / 체육관 / 웨이트 / 근력 운동
운동 / 트레이닝 / 워크아웃
요가 / 필라테스 / 스트레칭
수영 / 수영장
자전거 / 라이딩 / 사이클
등산 / 산행 / 산에 가다 / 트레킹
다이어트 / 살 빼다 / 체중 감량 / 감량
체중 / 몸무게
살찌다 / 체중 증가 / 몸무게 늘다
잠 / 수면 / 자다
불면증 / 잠을 못 자다 / 불면
늦잠 / 늦게 일어나다
일어나다 / 기상
낮잠 / 졸다
밥 / 식사 / 끼니
아침밥 / 아침 식사 / 조식
점심 / 점심밥 / 점심 식사 / 중식
저녁밥 / 저녁 식사 / 석식
야식 / 밤참
간식 / 군것질 / 디저트
외식 / 식당
식당 / 레스토랑 / 음식점 / 맛집
카페 / 커피숍 / 커피 전문점
커피 / 아메리카노 / 라떼 / 카페라떼
디카페인 / 카페인 없는
술 / 음주 / 한잔 / 술자리
맥주 / 비어 / 생맥
소주 / 쏘주
와인 / 포도주
회식 / 술자리 / 팀 저녁
담배 / 흡연 / 담배를 피우다
금연 / 담배를 끊다
금주 / 술을 끊다
요리 / 음식을 만들다 / 밥을 하다
배달 / 배달 음식 / 시켜 먹다
장보기 / 장을 보다 / 마트 / 시장
마트 / 슈퍼 / 슈퍼마켓 / 대형마트
편의점 / 편돌이
쇼핑 / 구매 / 쇼핑몰
택배 / 배송 / 주문
병원 / 의원 / 클리닉 / 진료
진료 / 진찰 / 검진 / 외래
건강검진 / 종합검진 / 건강 검진
치과 / 치과의원 / 치과 진료
치아 / 이빨
사랑니 / 사랑니 발치 / 이를 뽑다
발치 / 이를 뽑다 / 이 빼다
충치 / 썩은 이 / 치아 우식
스케일링 / 치석 제거
교정 / 치아 교정
감기 / 독감 / 몸살 / 코로나
열 / 발열 / 고열
두통 / 머리가 아프다 / 편두통
복통 / 배가 아프다 / 배탈
요통 / 허리가 아프다 / 허리 통증
허리 / 척추 / 디스크
무릎 / 관절
약 / 약국 / 처방 / 처방전
수술 / 시술 / 집도
입원 / 병원에 입원 / 병동
퇴원 / 병원에서 나오다
한의원 / 침 / 한약
안과 / 시력 / 눈 검사
피부과 / 피부 / 여드름
정신과 / 상담 / 심리 상담 / 상담 치료
다치다 / 부상 / 상처 / 골절
아프다 / 통증 / 몸살기
피곤 / 피로 / 지치다 / 녹초
스트레스 / 압박 / 부담
우울 / 울적 / 기분이 처지다 / 우울감 / 기분이 가라앉다
불안 / 걱정 / 초조 / 긴장
외롭다 / 외로움 / 쓸쓸하다
슬프다 / 슬픔 / 눈물 / 울다
기쁘다 / 기쁨 / 행복 / 즐겁다 / 신나다
화 / 짜증 / 분노 / 화가 나다 / 열받다
서운하다 / 섭섭하다 / 속상하다
고맙다 / 감사 / 고마움
설레다 / 설렘 / 두근거리다
후회 / 아쉽다 / 아쉬움
자신감 / 자존감
번아웃 / 탈진 / 소진
회사 / 직장 / 일터 / 회사일
출근 / 회사에 가다 / 출근길
퇴근 / 퇴근길 / 회사에서 나오다
야근 / 늦게까지 일하다 / 초과 근무 / 잔업
재택 / 재택근무 / 원격 근무 / 집에서 일하다
회의 / 미팅 / 회의실
발표 / 프레젠테이션 / 피티
면접 / 인터뷰 / 채용 면접
입사 / 취직 / 취업 / 합격
이직 / 회사를 옮기다 / 전직 / 새 회사
퇴사 / 회사를 그만두다 / 사직 / 사표
해고 / 잘리다 / 권고사직 / 정리해고
승진 / 진급
연봉 / 월급 / 급여 / 봉급 / 페이
보너스 / 상여금 / 성과급
상사 / 팀장 / 부장 / 과장 / 매니저
동료 / 직장 동료 / 팀원 / 동기
프로젝트 / 업무 / 과업
출장 / 출장 가다
휴가 / 연차 / 휴일 / 쉬는 날
월차 / 연차 / 반차
방학 / 휴학
학교 / 학원 / 수업
대학 / 대학교 / 학부
대학원 / 석사 / 박사
졸업 / 졸업식
입학 / 입학식
시험 / 테스트 / 고사 / 중간고사 / 기말고사
자격증 / 시험 합격 / 자격 시험
공부 / 학습 / 스터디
숙제 / 과제 / 레포트
영어 / 영어 공부 / 토익
돈 / 비용 / 경비
용돈 / 생활비
저축 / 적금 / 예금 / 모으다
투자 / 주식 / 코인 / 펀드
대출 / 빚 / 융자
카드값 / 카드 대금 / 할부
월세 / 렌트 / 집세
전세 / 전세금 / 보증금
집 / 자택 / 우리 집 / 숙소
이사 / 집을 옮기다 / 전입 / 이삿짐
아파트 / 빌라 / 오피스텔 / 원룸
청소 / 정리 / 집안일 / 치우다
빨래 / 세탁 / 세탁기
설거지 / 주방일
인테리어 / 집 꾸미기 / 리모델링
여행 / 트립 / 여행을 가다
해외여행 / 해외 / 외국
휴양 / 호캉스 / 호텔
비행기 / 항공 / 공항 / 항공권
기차 / 열차 / KTX / 고속열차
지하철 / 전철 / 지하철역
버스 / 시내버스 / 고속버스
택시 / 카카오택시
자동차 / 차 / 자가용
운전 / 드라이브 / 운전면허
캠핑 / 야영 / 글램핑
바다 / 해변 / 바닷가
영화 / 영화관 / 극장 / 무비
공연 / 콘서트 / 뮤지컬 / 연극
전시 / 전시회 / 미술관 / 박물관
책 / 독서 / 소설 / 읽다
드라마 / 시리즈 / 넷플릭스
게임 / 플레이
음악 / 노래 / 플레이리스트
그림 / 드로잉 / 스케치
사진 / 촬영 / 셀카
취미 / 여가 / 관심사
일기 / 다이어리 / 저널
약속 / 만나다 / 모임 / 만남
친구 / 지인 / 벗
파티 / 잔치 / 모임
선물 / 기프트 / 프레젠트
편지 / 손편지 / 카드
전화 / 통화 / 연락
문자 / 메시지 / 메세지
이메일 / 메일
날씨 / 기온 / 기상
비 / 장마 / 소나기 / 우산
폭설 / 눈이 오다 / 눈이 내리다 / 함박눈
덥다 / 더위 / 폭염
춥다 / 추위 / 한파
봄 / 봄날 / 봄철
여름 / 여름철 / 한여름
가을 / 가을철 / 단풍
겨울 / 겨울철 / 한겨울
주말 / 토요일 일요일 / 휴일
boyfriend / bf / partner
girlfriend / gf / partner
mom / mother / mum
dad / father
job / work / workplace / office
quit / resign / leave the job
doctor / clinic / hospital
dentist / tooth / teeth
tired / exhausted / worn out
sad / down / blue / unhappy
happy / glad / joyful
anxious / worried / nervous
dog / puppy / pup
cat / kitten / kitty
run / jog / jogging / running
gym / workout / fitness
movie / film / cinema
trip / travel / vacation / holiday
"""

# A general term, then the specific ones it covers: "병원 다녀온 게 언제야?" finds the dentist,
# but a query about the dentist does not bring every hospital visit.
COVERS = """
병원 : 치과 / 안과 / 피부과 / 한의원 / 정신과 / 내과 / 정형외과 / 이비인후과 / 산부인과
운동 : 요가 / 필라테스 / 헬스 / 수영 / 달리기 / 등산 / 자전거 / 테니스 / 배드민턴 / 클라이밍
가족 : 엄마 / 아빠 / 부모님 / 동생 / 언니 / 오빠 / 누나 / 형 / 할머니 / 할아버지 / 남편 / 아내
반려동물 : 강아지 / 고양이
술 : 맥주 / 소주 / 와인 / 막걸리 / 위스키 / 칵테일
음료 : 커피 / 차 / 주스 / 우유 / 탄산음료 / 디카페인
과일 : 사과 / 딸기 / 귤 / 바나나 / 포도 / 수박 / 복숭아
교통 : 지하철 / 버스 / 택시 / 기차 / 비행기
공연 : 콘서트 / 뮤지컬 / 연극 / 오페라
취미 : 독서 / 그림 / 사진 / 요리 / 게임 / 뜨개질 / 악기
악기 : 피아노 / 기타 / 바이올린 / 드럼 / 우쿨렐레
sport : tennis / football / soccer / basketball / swimming / climbing / yoga
family : mom / dad / sister / brother / grandma / grandpa / husband / wife
"""
